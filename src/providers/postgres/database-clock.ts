import { type Clock, systemClock, type TimerHandle } from "../../core/clock.js";
import type { PgPool } from "../../postgres/pg-pool.js";
import { pgQuery } from "./pg-failures.js";

/**
 * The database server's clock, read through this machine's: the offset between the two is
 * measured when the provider opens (half a round trip of error at most), so every machine that
 * shares the database writes locks and delays on one time line even if their own clocks drift.
 */
export class DatabaseClock implements Clock {
  #offsetMs = 0;

  now(): number {
    return Date.now() + this.#offsetMs;
  }

  setTimer(callback: () => void, delayMs: number, background?: boolean): TimerHandle {
    return systemClock.setTimer(callback, delayMs, background);
  }

  /** Measures the server's clock against this machine's. */
  async synchronize(pool: PgPool): Promise<void> {
    const sentAt = Date.now();
    const answer = await pgQuery<{ now: string }>(
      pool,
      "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now",
      [],
      "reading the database's clock",
    );
    const receivedAt = Date.now();
    this.#offsetMs = Math.round(Number(answer.rows[0]!.now) - (sentAt + receivedAt) / 2);
  }
}
