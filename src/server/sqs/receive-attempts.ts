import type { Clock } from "../../core/clock.js";
import type { LockReference } from "../../engine/records.js";

/** How long SQS honours a `ReceiveRequestAttemptId`. */
export const RECEIVE_ATTEMPT_WINDOW_MS = 300_000;
const MAX_REMEMBERED = 10_000;

interface Attempt {
  readonly expiresAt: number;
  readonly locks: readonly LockReference[];
}

/**
 * The receives of FIFO queues that named a `ReceiveRequestAttemptId`: a retry with the same id
 * within five minutes gets the same messages and receipt handles back. Kept in memory: a
 * restarted server answers a retried attempt with a fresh receive, as SQS does once the window ends.
 */
export class ReceiveAttempts {
  readonly #clock: Clock;
  readonly #attempts = new Map<string, Attempt>();

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** The locks an earlier receive with this id handed out, while its window lasts. */
  find(queue: string, attemptId: string): readonly LockReference[] | undefined {
    const key = `${queue}\n${attemptId}`;
    const attempt = this.#attempts.get(key);
    if (attempt === undefined) return undefined;
    if (attempt.expiresAt > this.#clock.now()) return attempt.locks;
    this.#attempts.delete(key);
    return undefined;
  }

  /** Remembers what a receive with this id handed out. */
  remember(queue: string, attemptId: string, locks: readonly LockReference[]): void {
    const now = this.#clock.now();
    if (this.#attempts.size >= MAX_REMEMBERED)
      for (const [key, attempt] of this.#attempts) if (attempt.expiresAt <= now) this.#attempts.delete(key);
    if (this.#attempts.size >= MAX_REMEMBERED) this.#attempts.delete(this.#attempts.keys().next().value!);
    this.#attempts.set(`${queue}\n${attemptId}`, { expiresAt: now + RECEIVE_ATTEMPT_WINDOW_MS, locks });
  }
}
