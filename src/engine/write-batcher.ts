import { QueueError } from "../core/errors.js";

interface PendingWrite {
  readonly write: () => unknown;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit: writes issued in the same turn of the event loop (a `Promise.all` of completes,
 * many concurrent sends) run in one store transaction, so a batch pays for one commit instead of
 * one each. Each write still gets its own outcome: a `QueueError` fails only its own write (the
 * engine checks before it changes anything), any other error rolls back and fails them all.
 * Promises settle only after the commit.
 */
export class WriteBatcher {
  readonly #transaction: <T>(fn: () => T) => T;
  readonly #schedule: (flush: () => void) => void;
  #pending: PendingWrite[] = [];

  /**
   * `transaction` runs a function atomically (the store's); `schedule` decides how long writes
   * gather: by default until the current microtasks are done (one caller's `Promise.all`); a
   * server passes `setImmediate` so that requests read in the same turn of the event loop share
   * a commit too.
   */
  constructor(transaction: <T>(fn: () => T) => T, schedule: (flush: () => void) => void = queueMicrotask) {
    this.#transaction = transaction;
    this.#schedule = schedule;
  }

  /** Runs `write` in the next group commit; resolves its result once committed. */
  run<T>(write: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#pending.length === 0) this.#schedule(() => this.#flush());
      this.#pending.push({ write, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  #flush(): void {
    const batch = this.#pending;
    this.#pending = [];
    let outcomes: { ok: boolean; value: unknown }[];
    try {
      outcomes = this.#transaction(() =>
        batch.map(({ write }) => {
          try {
            return { ok: true, value: write() };
          } catch (error) {
            if (error instanceof QueueError) return { ok: false, value: error };
            throw error;
          }
        }),
      );
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    outcomes.forEach((outcome, index) => {
      const pending = batch[index]!;
      if (outcome.ok) pending.resolve(outcome.value);
      else pending.reject(outcome.value);
    });
  }
}
