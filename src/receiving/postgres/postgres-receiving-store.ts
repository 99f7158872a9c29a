import { QueueError } from "../../core/errors.js";
import type { PgPool, PgPoolClient, PgQuery } from "../../postgres/pg-pool.js";
import {
  byFailure,
  deliveryItem,
  type FailedDeliveryRow,
  type ParkedRow,
  parkedItem,
} from "../stores/failed-rows.js";
import type {
  ClaimedDelivery,
  Commit,
  DeliveryClaim,
  DeliverySettlement,
  FailedItem,
  ItemRef,
  KeepOutcome,
  ReceivingStore,
  RetriedMessage,
} from "../stores/receiving-store.js";
import { StoreLifecycle, schemaAction } from "../stores/store-lifecycle.js";
import { type ReceivingStoreOptions, type TableNames, tableNames } from "../stores/store-options.js";
import { postgresFailure } from "./pg-errors.js";
import { POSTGRES_SCHEMA_VERSION, postgresSchema } from "./postgres-schema.js";
import { type PostgresStatements, postgresStatements } from "./postgres-statements.js";

/** Options of {@link postgresStore}. */
export interface PostgresReceivingStoreOptions extends ReceivingStoreOptions {
  /** How long a statement waits for another transaction's lock before the store counts as unavailable (default 5 000 ms). */
  readonly lockTimeoutMs?: number;
  /** How long one statement may run (default 15 000 ms). */
  readonly statementTimeoutMs?: number;
  /**
   * Name the store's statements so that each connection prepares and plans them once (default
   * true). Turn it off behind a pooler that cannot keep them (PgBouncer in transaction mode
   * before 1.21).
   */
  readonly preparedStatements?: boolean;
}

/** A receiving store in PostgreSQL: a `pg.Pool` used as given (its `search_path` respected), or a URL for a pool of its own. */
export function postgresStore(
  poolOrUrl: PgPool | string,
  options: PostgresReceivingStoreOptions = {},
): ReceivingStore {
  return new PostgresReceivingStore(poolOrUrl, options);
}

class PostgresReceivingStore implements ReceivingStore {
  readonly description: string;
  readonly #given: PgPool | undefined;
  readonly #url: string | undefined;
  readonly #tables: TableNames;
  readonly #sql: PostgresStatements;
  readonly #begin: string;
  #pool: PgPool | undefined;
  readonly #lifecycle: StoreLifecycle;

  constructor(poolOrUrl: PgPool | string, options: PostgresReceivingStoreOptions) {
    if (typeof poolOrUrl === "string") {
      this.#url = poolOrUrl;
      this.description = `the receiving store (PostgreSQL ${describeUrl(poolOrUrl)})`;
    } else if (
      poolOrUrl !== null &&
      typeof poolOrUrl === "object" &&
      typeof poolOrUrl.connect === "function"
    ) {
      this.#given = poolOrUrl;
      this.description = "the receiving store (PostgreSQL pool)";
    } else throw new QueueError("Configuration", "postgresStore needs a pg.Pool or a postgres:// URL");
    const lockTimeout = milliseconds("lockTimeoutMs", options.lockTimeoutMs ?? 5_000);
    const statementTimeout = milliseconds("statementTimeoutMs", options.statementTimeoutMs ?? 15_000);
    this.#tables = tableNames(options);
    const prepared = options.preparedStatements ?? true;
    if (typeof prepared !== "boolean")
      throw new QueueError("Configuration", "preparedStatements must be true or false");
    this.#sql = postgresStatements(this.#tables, prepared);
    // One round trip opens the transaction and bounds its waits.
    this.#begin = `BEGIN; SET LOCAL lock_timeout = ${lockTimeout}; SET LOCAL statement_timeout = ${statementTimeout}`;
    this.#lifecycle = new StoreLifecycle(this.description, () => this.#open());
  }

  open(): Promise<void> {
    return this.#lifecycle.open();
  }

  async #open(): Promise<void> {
    if (this.#given !== undefined) this.#pool = this.#given;
    else {
      const { default: pg } = await import("pg");
      const pool = new pg.Pool({ connectionString: this.#url, connectionTimeoutMillis: 5_000 });
      // An idle connection that breaks is dropped by the pool; the next query takes a new one.
      pool.on("error", () => undefined);
      this.#pool = pool;
    }
    await this.#transaction(async (client) => {
      const t = this.#tables;
      // Two processes starting at once migrate one after the other.
      await client.query("SELECT pg_advisory_xact_lock(hashtext(current_schema() || $1))", [
        `queue-runtime receiving ${t.schemaVersion}`,
      ]);
      await client.query(`CREATE TABLE IF NOT EXISTS ${t.schemaVersion} (version integer NOT NULL)`);
      const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${t.schemaVersion}`);
      const action = schemaAction(this.description, rows[0]?.version, POSTGRES_SCHEMA_VERSION);
      if (action === "current") return;
      await client.query(postgresSchema(t));
      await client.query(
        action === "create"
          ? `INSERT INTO ${t.schemaVersion} (version) VALUES (${POSTGRES_SCHEMA_VERSION})`
          : `UPDATE ${t.schemaVersion} SET version = ${POSTGRES_SCHEMA_VERSION}`,
      );
    });
  }

  async commit(commit: Commit, now: number): Promise<KeepOutcome[]> {
    await this.open();
    const sql = this.#sql;
    return this.#transaction(async (client) => {
      let outcomes: KeepOutcome[] = [];
      if (commit.keep.length > 0) {
        const parked: number[] = [];
        for (const event of commit.keep) if (event.parkedId !== undefined) parked.push(event.parkedId);
        if (parked.length > 0) await client.query({ ...sql.deleteParked, values: [parked] });
        const { rows } = await client.query<{ queue: string; id: string }>({
          ...sql.keep,
          values: sql.keepValues(commit.keep, now),
        });
        const recorded = new Set(rows.map((row) => `${row.queue}\u0000${row.id}`));
        outcomes = commit.keep.map((event) =>
          recorded.has(`${event.queue}\u0000${event.id}`) ? "kept" : "repeat",
        );
      }
      if (commit.park.length > 0)
        await client.query({ ...sql.park, values: sql.parkValues(commit.park, now) });
      return outcomes;
    });
  }

  async retriedMessages(queues: readonly string[], limit: number): Promise<RetriedMessage[]> {
    const { rows } = await this.#query<{ id: string; queue: string; body: Buffer }>(this.#sql.retried, [
      queues,
      limit,
    ]);
    return rows.map((row) => ({
      parkedId: Number(row.id),
      queue: row.queue,
      body: new Uint8Array(row.body),
    }));
  }

  async claimDeliveries(claim: DeliveryClaim): Promise<ClaimedDelivery[]> {
    const { rows } = await this.#query<{
      id: string;
      subscriber: string;
      attempts: number;
      claim: number;
      queue: string;
      event_id: string;
      event: string;
      payload: string;
    }>(this.#sql.claim, [claim.now, claim.limit, claim.claimedUntil, claim.since, claim.subscribers]);
    return rows.map((row) => ({
      deliveryId: Number(row.id),
      subscriber: row.subscriber,
      queue: row.queue,
      eventId: row.event_id,
      event: row.event,
      payload: row.payload,
      attempt: row.attempts,
      claim: row.claim,
    }));
  }

  async settleDeliveries(settlements: readonly DeliverySettlement[], now: number): Promise<void> {
    if (settlements.length === 0) return;
    await this.open();
    const done = settlements.filter((s) => s.outcome === "done");
    const later = settlements.filter((s) => s.outcome !== "done");
    await this.#transaction(async (client) => {
      if (done.length > 0) await this.#drop(client, done);
      if (later.length > 0)
        await client.query({ ...this.#sql.reschedule, values: this.#sql.rescheduleValues(later, now) });
    });
  }

  async expire(before: number): Promise<void> {
    await this.open();
    await this.#transaction(async (client) => {
      await client.query({ ...this.#sql.forgetIds, values: [before] });
      await client.query({ ...this.#sql.forgetParked, values: [before] });
      const { rows } = await client.query<{ id: string; claim: number }>({
        ...this.#sql.dismissedDeliveries,
        values: [before],
      });
      if (rows.length > 0)
        await this.#drop(
          client,
          rows.map((row) => ({ deliveryId: Number(row.id), claim: row.claim })),
        );
    });
  }

  async failedItems(): Promise<FailedItem[]> {
    const [parked, deliveries] = await Promise.all([
      this.#query<ParkedRow>(this.#sql.failedParked),
      this.#query<FailedDeliveryRow>(this.#sql.failedDeliveries),
    ]);
    return byFailure(parked.rows.map(parkedItem), deliveries.rows.map(deliveryItem));
  }

  async retry(item: ItemRef, now: number): Promise<boolean> {
    const sql = item.kind === "parked" ? this.#sql.retryParked : this.#sql.retryDelivery;
    return ((await this.#query(sql, [now, item.id])).rowCount ?? 0) > 0;
  }

  async dismiss(item: ItemRef, now: number): Promise<boolean> {
    const sql = item.kind === "parked" ? this.#sql.dismissParked : this.#sql.dismissDelivery;
    return ((await this.#query(sql, [now, item.id])).rowCount ?? 0) > 0;
  }

  async close(): Promise<void> {
    if (!(await this.#lifecycle.close())) return;
    if (this.#given === undefined) await this.#pool?.end();
    this.#pool = undefined;
  }

  /**
   * Deletes deliveries still under these claims, and each outbox row with none left; outbox rows
   * are locked in id order first, so that two settlers never deadlock.
   */
  async #drop(
    client: PgPoolClient,
    claimed: readonly { deliveryId: number; claim: number }[],
  ): Promise<void> {
    const ids = claimed.map((delivery) => delivery.deliveryId);
    await client.query({ ...this.#sql.lockOutbox, values: [ids] });
    await client.query({
      ...this.#sql.dropDeliveries,
      values: [ids, claimed.map((delivery) => delivery.claim)],
    });
  }

  async #query<Row>(query: PgQuery, values?: unknown[]): Promise<{ rows: Row[]; rowCount: number | null }> {
    await this.open();
    const pool = this.#poolOrClosed();
    try {
      return await pool.query<Row>(values === undefined ? query : { ...query, values });
    } catch (error) {
      throw postgresFailure(this.description, error);
    }
  }

  /** Runs `work` between `BEGIN` and `COMMIT` on one connection; a connection that broke is discarded, not returned. */
  async #transaction<T>(work: (client: PgPoolClient) => Promise<T>): Promise<T> {
    const pool = this.#poolOrClosed();
    let client: PgPoolClient;
    try {
      client = await pool.connect();
    } catch (error) {
      throw postgresFailure(this.description, error);
    }
    // A connection that breaks while held reports here; without a listener the process would end.
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on("error", onError);
    try {
      await client.query(this.#begin);
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      if (broken === undefined)
        await client.query("ROLLBACK").catch((rollback: Error) => (broken = rollback));
      if (QueueError.is(error)) throw error;
      throw postgresFailure(this.description, error);
    } finally {
      client.off("error", onError);
      client.release(broken ?? false);
    }
  }

  #poolOrClosed(): PgPool {
    if (this.#pool === undefined) throw this.#lifecycle.closedError();
    return this.#pool;
  }
}

function milliseconds(what: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 3_600_000)
    throw new QueueError("Configuration", `${what} must be a whole number of milliseconds from 1 to 3600000`);
  return value;
}

/** Host, port and database of a URL, never its password. */
function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || "5432"}${parsed.pathname}`;
  } catch {
    throw new QueueError(
      "Configuration",
      "postgresStore's URL is not a URL (postgres://user@host:5432/database)",
    );
  }
}
