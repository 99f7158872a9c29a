import type { EngineProviderOptions } from "../../rules/queue-defaults.js";

/** The embedded durable provider: queues live in one SQLite file. */
export interface SqliteProviderConfig extends EngineProviderOptions {
  type: "sqlite";
  /** The database file; created with its schema when missing. */
  path: string;
  /** `NORMAL` (default) survives a process crash; `FULL` also survives power loss, at a cost per commit. */
  synchronous?: "NORMAL" | "FULL";
}

declare module "../../core/config.js" {
  interface ProviderConfigs {
    sqlite: SqliteProviderConfig;
  }
}
