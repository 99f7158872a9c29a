import type BetterSqlite3 from "better-sqlite3";
import Database from "better-sqlite3";
import { QueueError } from "../../core/errors.js";
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
import { storeRefused, storeUnavailable } from "../stores/store-errors.js";
import { StoreLifecycle, schemaAction } from "../stores/store-lifecycle.js";
import { type ReceivingStoreOptions, type TableNames, tableNames } from "../stores/store-options.js";
import { SQLITE_SCHEMA_VERSION, sqliteSchema } from "./sqlite-schema.js";
import { prepareReceivingStatements, type ReceivingStatements } from "./sqlite-statements.js";

/** Options of {@link sqliteStore}. */
export interface SqliteReceivingStoreOptions extends ReceivingStoreOptions {
  /** How long a write waits for another process's lock before the store counts as unavailable (default 5 000 ms). */
  readonly busyTimeoutMs?: number;
  /** `NORMAL` (default) survives a process crash; `FULL` also power loss, at a cost per commit. */
  readonly synchronous?: "NORMAL" | "FULL";
}

/** The longest lock wait the store accepts: the spec's bound on giving up. */
const MAX_BUSY_TIMEOUT_MS = 15_000;
/** SQLite's own busy wait per try, short so that the event loop is not held; longer waits sleep between tries. */
const BUSY_SLICE_MS = 20;

/** A receiving store in one SQLite file (WAL), shared safely by the processes that open it: one writer at a time. */
export function sqliteStore(path: string, options: SqliteReceivingStoreOptions = {}): ReceivingStore {
  return new SqliteReceivingStore(path, options);
}

class SqliteReceivingStore implements ReceivingStore {
  readonly description: string;
  readonly #path: string;
  readonly #tables: TableNames;
  readonly #busyTimeoutMs: number;
  readonly #synchronous: "NORMAL" | "FULL";
  #db: BetterSqlite3.Database | undefined;
  #sql: ReceivingStatements | undefined;
  readonly #lifecycle: StoreLifecycle;

  constructor(path: string, options: SqliteReceivingStoreOptions) {
    if (typeof path !== "string" || path.length === 0)
      throw new QueueError("Configuration", "sqliteStore needs the path of its database file");
    const busy = options.busyTimeoutMs ?? 5_000;
    if (!Number.isInteger(busy) || busy < 0 || busy > MAX_BUSY_TIMEOUT_MS)
      throw new QueueError(
        "Configuration",
        `busyTimeoutMs must be a whole number of milliseconds from 0 to ${MAX_BUSY_TIMEOUT_MS}`,
      );
    const synchronous = options.synchronous ?? "NORMAL";
    if (synchronous !== "NORMAL" && synchronous !== "FULL")
      throw new QueueError("Configuration", 'synchronous must be "NORMAL" or "FULL"');
    this.#path = path;
    this.#tables = tableNames(options);
    this.#busyTimeoutMs = busy;
    this.#synchronous = synchronous;
    this.description = `the receiving store (SQLite ${path})`;
    this.#lifecycle = new StoreLifecycle(this.description, () => this.#open());
  }

  open(): Promise<void> {
    return this.#lifecycle.open();
  }

  async #open(): Promise<void> {
    let db: BetterSqlite3.Database;
    try {
      db = new Database(this.#path);
    } catch (error) {
      throw new QueueError("Configuration", `cannot open ${this.description}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    try {
      db.pragma(`busy_timeout = ${Math.min(BUSY_SLICE_MS, this.#busyTimeoutMs)}`);
      await this.#whenFree(() => db.pragma("journal_mode = WAL"));
      db.pragma(`synchronous = ${this.#synchronous}`);
      await this.#whenFree(() => db.transaction(() => this.#migrate(db)).immediate());
    } catch (error) {
      db.close();
      if (QueueError.is(error)) throw error;
      throw new QueueError("Configuration", `cannot open ${this.description}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    this.#db = db;
    this.#sql = prepareReceivingStatements(db, this.#tables);
  }

  #migrate(db: BetterSqlite3.Database): void {
    const version = this.#tables.schemaVersion;
    db.exec(`CREATE TABLE IF NOT EXISTS ${version} (version INTEGER NOT NULL)`);
    const row = db.prepare(`SELECT version FROM ${version}`).get() as { version: number } | undefined;
    const action = schemaAction(this.description, row?.version, SQLITE_SCHEMA_VERSION);
    if (action === "current") return;
    db.exec(sqliteSchema(this.#tables));
    if (action === "create")
      db.prepare(`INSERT INTO ${version} (version) VALUES (?)`).run(SQLITE_SCHEMA_VERSION);
    else db.prepare(`UPDATE ${version} SET version = ?`).run(SQLITE_SCHEMA_VERSION);
  }

  async commit(commit: Commit, now: number): Promise<KeepOutcome[]> {
    const sql = await this.#ready();
    return this.#whenFree(() => sql.commit.immediate(commit, now));
  }

  async retriedMessages(queues: readonly string[], limit: number): Promise<RetriedMessage[]> {
    const sql = await this.#ready();
    const rows = await this.#whenFree(
      () => sql.retried.all(JSON.stringify(queues), limit) as { id: number; queue: string; body: Buffer }[],
    );
    return rows.map((row) => ({ parkedId: row.id, queue: row.queue, body: new Uint8Array(row.body) }));
  }

  async claimDeliveries(claim: DeliveryClaim): Promise<ClaimedDelivery[]> {
    const sql = await this.#ready();
    return this.#whenFree(() => sql.claim.immediate(claim));
  }

  async settleDeliveries(settlements: readonly DeliverySettlement[], now: number): Promise<void> {
    if (settlements.length === 0) return;
    const sql = await this.#ready();
    await this.#whenFree(() => sql.settle.immediate(settlements, now));
  }

  async expire(before: number): Promise<void> {
    const sql = await this.#ready();
    await this.#whenFree(() => sql.expire.immediate(before));
  }

  async failedItems(): Promise<FailedItem[]> {
    const sql = await this.#ready();
    return this.#whenFree(() => sql.failed.deferred());
  }

  async retry(item: ItemRef, now: number): Promise<boolean> {
    const sql = await this.#ready();
    const statement = item.kind === "parked" ? sql.retryParked : sql.retryDelivery;
    return this.#whenFree(() => statement.run(now, item.id).changes > 0);
  }

  async dismiss(item: ItemRef, now: number): Promise<boolean> {
    const sql = await this.#ready();
    const statement = item.kind === "parked" ? sql.dismissParked : sql.dismissDelivery;
    return this.#whenFree(() => statement.run(now, item.id).changes > 0);
  }

  async close(): Promise<void> {
    await this.#lifecycle.close();
    this.#db?.close();
    this.#db = undefined;
    this.#sql = undefined;
  }

  async #ready(): Promise<ReceivingStatements> {
    await this.open();
    if (this.#sql === undefined) throw this.#lifecycle.closedError();
    return this.#sql;
  }

  /**
   * Runs `work`, trying again while another process holds the write lock, for up to the busy
   * timeout of real time: the lock is another process's, so a virtual clock would never see it go.
   */
  async #whenFree<T>(work: () => T): Promise<T> {
    const started = performance.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return work();
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        const busy =
          typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
        if (!busy) throw this.#classify(error);
        const left = this.#busyTimeoutMs - (performance.now() - started);
        if (left <= 0) throw storeUnavailable(this.description, error, code);
        await new Promise((resolve) =>
          setTimeout(resolve, Math.min(left, 2 + Math.random() * Math.min(50, 2 ** attempt))),
        );
      }
    }
  }

  #classify(error: unknown): QueueError {
    if (QueueError.is(error)) return error;
    const code = (error as { code?: unknown }).code;
    const text = typeof code === "string" ? code : undefined;
    // What the data breaks, SQLite refuses every time; anything else (I/O, a full disk, a closed file) may pass.
    if (text !== undefined && /^SQLITE_(CONSTRAINT|TOOBIG|MISMATCH)/.test(text))
      return storeRefused(this.description, error, text);
    return storeUnavailable(this.description, error, text);
  }
}
