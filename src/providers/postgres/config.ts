import type { PgPool } from "../../postgres/pg-pool.js";
import type { EngineProviderOptions } from "../../rules/queue-defaults.js";

/** PostgreSQL: queues in tables of one schema, shared by every process that uses the database. */
export interface PostgresProviderConfig extends EngineProviderOptions {
  type: "postgres";
  /** `postgres://user:password@host:5432/database`; one of this or `pool`. */
  connectionString?: string;
  /** A `pg.Pool` the application already has; it stays open when the client closes. */
  pool?: PgPool;
  /** The schema the tables live in (default `queue_runtime`), created on first use. */
  schema?: string;
  /**
   * How often one of the processes sharing the schema vacuums the tables that dead rows piled up
   * in (default 10 000); 0 leaves it to the server's autovacuum.
   */
  vacuumIntervalMs?: number;
}

declare module "../../core/config.js" {
  interface ProviderConfigs {
    postgres: PostgresProviderConfig;
  }
}
