import { QueueError } from "../../core/errors.js";
import type { PgPool } from "../../postgres/pg-pool.js";
import { pgQuery } from "./pg-failures.js";

/** One complete waiting for its statement. */
interface PendingComplete {
  readonly seq: string;
  readonly lockToken: string;
  readonly now: number;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Completes issued in the same turn of the event loop (a `Promise.all` over a batch) go to the
 * database as one statement per queue: one round trip and one commit instead of one each. Each
 * complete still answers on its own: a lock that ended fails its own call with `InvalidReceipt`.
 */
export class CompleteBatcher {
  readonly #pool: PgPool;
  readonly #schema: string;
  readonly #pending = new Map<number, PendingComplete[]>();
  #scheduled = false;

  constructor(pool: PgPool, quotedSchema: string) {
    this.#pool = pool;
    this.#schema = quotedSchema;
  }

  /** Deletes message `seq` of queue `queueId` if `lockToken` still holds its lock. */
  complete(queueId: number, seq: string, lockToken: string, now: number, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      let queue = this.#pending.get(queueId);
      if (queue === undefined) {
        queue = [];
        this.#pending.set(queueId, queue);
      }
      queue.push({
        seq,
        lockToken,
        now,
        resolve,
        reject: (error) =>
          reject(
            QueueError.is(error, "InvalidReceipt")
              ? new QueueError("InvalidReceipt", `${what}: ${error.message}`)
              : error,
          ),
      });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const batches = [...this.#pending];
    this.#pending.clear();
    for (const [queueId, batch] of batches) void this.#run(queueId, batch);
  }

  async #run(queueId: number, batch: PendingComplete[]): Promise<void> {
    // Locks are checked against the latest moment asked for: each complete was asked at or before it.
    const now = Math.max(...batch.map((one) => one.now));
    try {
      const deleted = await pgQuery<{ seq: string }>(
        this.#pool,
        `DELETE FROM ${this.#schema}.messages m USING unnest($2::bigint[], $3::uuid[]) AS u (seq, lock_token)
         WHERE m.seq = u.seq AND m.lock_token = u.lock_token AND m.queue_id = $1 AND m.state = 2 AND m.visible_at > $4
         RETURNING m.seq`,
        [queueId, batch.map((one) => one.seq), batch.map((one) => one.lockToken), now],
        "completing messages",
        `${this.#schema}.complete`,
      );
      const done = new Set(deleted.rows.map((row) => row.seq));
      for (const one of batch)
        if (done.has(one.seq)) one.resolve();
        else
          one.reject(
            new QueueError(
              "InvalidReceipt",
              "the lock of this receipt has ended or the message was settled already",
            ),
          );
    } catch (error) {
      for (const one of batch) one.reject(error);
    }
  }
}
