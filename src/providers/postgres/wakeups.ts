import type { Clock } from "../../core/clock.js";
import { Waiters } from "../../core/waiters.js";

/**
 * The waits of one client's receives and accepts, woken by signals of their queue (a send or
 * an abandon here, a notification from another process). A signal that comes between a receive
 * finding nothing and its wait starting is not lost: the wait sees that the queue's count of
 * signals moved on since its mark, and returns at once.
 */
export class Wakeups {
  readonly #waiters: Waiters;
  readonly #signals = new Map<string, number>();
  /** Signals of every queue at once (the listener reconnected and may have missed some). */
  #everything = 0;

  constructor(clock: Clock) {
    this.#waiters = new Waiters(clock);
  }

  /** A mark to wait from: taken before looking for messages. */
  mark(queue: string): number {
    return (this.#signals.get(queue) ?? 0) + this.#everything;
  }

  /** Waits until `queue` is signalled after `mark`, or until `untilMs`, or until `signal` aborts. */
  async wait(queue: string, mark: number, untilMs: number, signal: AbortSignal): Promise<void> {
    if (this.mark(queue) !== mark) return;
    await this.#waiters.wait(queue, untilMs, signal);
  }

  /** Wakes the waits of `queue`, or of every queue for `"*"`. */
  signal(queue: string): void {
    if (queue === "*") {
      this.#everything++;
      this.#waiters.notifyAll();
      return;
    }
    this.#signals.set(queue, (this.#signals.get(queue) ?? 0) + 1);
    this.#waiters.notify(queue);
  }

  /** Wakes every wait (the client is closing). */
  wakeAll(): void {
    this.#waiters.notifyAll();
  }
}
