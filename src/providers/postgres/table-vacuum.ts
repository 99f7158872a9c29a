import type { Clock, TimerHandle } from "../../core/clock.js";
import type { PgPool, PgPoolClient } from "../../postgres/pg-pool.js";
import { pgFailure } from "./pg-failures.js";

/** The tables every message churns through: a completed message leaves a dead row behind. */
const CHURNING_TABLES = ["messages", "groups", "duplicates"];
/** Dead rows a table holds before it is vacuumed: this many, plus a share of its live rows. */
const DEAD_ROWS_FLOOR = 1_000;
const DEAD_ROWS_SHARE = 0.1;

/**
 * Keeps the queue tables from growing without bound. Every completed message leaves a dead row,
 * and only a vacuum makes its space reusable; autovacuum does that when the server runs it, but
 * it may be off or tuned for slow-changing tables. So every `intervalMs` one process per schema
 * (a session advisory lock picks it; the others skip) vacuums the tables whose dead rows passed
 * {@link DEAD_ROWS_FLOOR} plus {@link DEAD_ROWS_SHARE} of their live rows.
 */
export class TableVacuum {
  readonly #pool: PgPool;
  readonly #schema: string;
  readonly #clock: Clock;
  readonly #intervalMs: number;
  #timer: TimerHandle | undefined;
  #pass: Promise<unknown> | undefined;
  #stopped = false;

  constructor(pool: PgPool, schema: string, clock: Clock, intervalMs: number) {
    this.#pool = pool;
    this.#schema = schema;
    this.#clock = clock;
    this.#intervalMs = intervalMs;
  }

  /** Starts vacuuming every interval (an interval of 0 leaves it all to autovacuum). */
  start(): void {
    if (this.#intervalMs > 0 && this.#timer === undefined && !this.#stopped) this.#arm();
  }

  /** Stops the timer and waits for a pass under way. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#timer?.cancel();
    await this.#pass;
  }

  /**
   * One pass: vacuums the tables with enough dead rows and returns their names; none when another
   * process is vacuuming this schema.
   */
  async vacuumDue(): Promise<string[]> {
    try {
      return await this.#vacuumDue();
    } catch (error) {
      throw pgFailure(`vacuuming the tables of postgres schema ${this.#schema}`, error);
    }
  }

  async #vacuumDue(): Promise<string[]> {
    const client = await this.#pool.connect();
    const lockKey = `queue-runtime:vacuum:${this.#schema}`;
    let locked = false;
    try {
      const lock = await client.query<{ locked: boolean }>(
        "SELECT pg_try_advisory_lock(hashtext($1)) AS locked",
        [lockKey],
      );
      locked = lock.rows[0]?.locked === true;
      if (!locked) return [];
      const due = await this.#tablesDue(client);
      // One at a time: VACUUM cannot run in a transaction, and SKIP_LOCKED passes over a table
      // whose lock another vacuum (autovacuum) holds instead of waiting for it.
      for (const table of due) await client.query(`VACUUM (SKIP_LOCKED) "${this.#schema}".${table}`);
      return due;
    } finally {
      if (locked)
        await client.query("SELECT pg_advisory_unlock(hashtext($1))", [lockKey]).catch(() => undefined);
      client.release();
    }
  }

  /** The churning tables whose dead rows passed the threshold, by the server's statistics. */
  async #tablesDue(client: PgPoolClient): Promise<string[]> {
    const tables = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relname = ANY($2::text[])
          AND pg_stat_get_dead_tuples(c.oid) > $3::int + $4::float8 * pg_stat_get_live_tuples(c.oid)
        ORDER BY c.relname`,
      [this.#schema, CHURNING_TABLES, DEAD_ROWS_FLOOR, DEAD_ROWS_SHARE],
    );
    return tables.rows.map((row) => row.name);
  }

  /** The next pass, `intervalMs` after the last one ended; a failed pass is tried at the next. */
  #arm(): void {
    this.#timer = this.#clock.setTimer(
      () => {
        if (this.#stopped) return;
        this.#pass = this.vacuumDue()
          .catch(() => undefined)
          .finally(() => {
            this.#pass = undefined;
            if (!this.#stopped) this.#arm();
          });
      },
      this.#intervalMs,
      true,
    );
  }
}
