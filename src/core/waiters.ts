import type { Clock } from "./clock.js";

/**
 * Receivers waiting for a queue to change. A send, an abandon or a released session wakes every
 * waiter of its queue at once; each then tries again and waits anew if it got nothing. No polling:
 * a waiter's only timer is for the moment its own wait ends or something due on the queue falls due.
 */
export class Waiters {
  readonly #byQueue = new Map<string, Set<() => void>>();
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Resolves when `queue` is notified (`true`), or at `untilMs` or when `signal` aborts (`false`). */
  wait(queue: string, untilMs: number, signal: AbortSignal | undefined): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      let waiters = this.#byQueue.get(queue);
      if (waiters === undefined) {
        waiters = new Set();
        this.#byQueue.set(queue, waiters);
      }
      const set = waiters;
      const end = (notified: boolean) => {
        timer.cancel();
        signal?.removeEventListener("abort", stop);
        set.delete(notify);
        if (set.size === 0 && this.#byQueue.get(queue) === set) this.#byQueue.delete(queue);
        resolve(notified);
      };
      const notify = () => end(true);
      const stop = () => end(false);
      const timer = this.#clock.setTimer(stop, Math.max(0, untilMs - this.#clock.now()));
      signal?.addEventListener("abort", stop, { once: true });
      set.add(notify);
    });
  }

  /** Wakes every waiter of `queue`. */
  notify(queue: string): void {
    const waiters = this.#byQueue.get(queue);
    if (waiters === undefined) return;
    for (const wake of [...waiters]) wake();
  }

  /** Wakes every waiter of every queue. */
  notifyAll(): void {
    for (const queue of [...this.#byQueue.keys()]) this.notify(queue);
  }

  /** How many receivers wait on `queue`. */
  count(queue: string): number {
    return this.#byQueue.get(queue)?.size ?? 0;
  }
}
