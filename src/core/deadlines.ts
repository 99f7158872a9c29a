import type { Clock, TimerHandle } from "./clock.js";
import { QueueError } from "./errors.js";

interface Pending {
  readonly due: number;
  readonly expire: () => void;
}

/**
 * Operation timeouts for many concurrent calls on one timer: each call registers its deadline,
 * and a single timer, armed for the earliest one, fails the calls that overrun. This keeps a
 * timeout's cost to a set insertion on the hot path instead of a timer per call.
 */
export class Deadlines {
  readonly #clock: Clock;
  readonly #pending = new Set<Pending>();
  #timer: TimerHandle | undefined;
  #timerDue = Number.POSITIVE_INFINITY;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Settles like `promise`, or fails with `Timeout` once `timeoutMs` has passed. */
  race<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: Pending = {
        due: this.#clock.now() + timeoutMs,
        expire: () => reject(new QueueError("Timeout", `${what} did not finish within ${timeoutMs} ms`)),
      };
      this.#pending.add(entry);
      if (entry.due < this.#timerDue) this.#arm(entry.due);
      promise.then(
        (value) => {
          this.#pending.delete(entry);
          resolve(value);
        },
        (error: unknown) => {
          this.#pending.delete(entry);
          reject(error);
        },
      );
    });
  }

  /** Cancels the timer; pending calls keep running without a deadline. */
  clear(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerDue = Number.POSITIVE_INFINITY;
    this.#pending.clear();
  }

  #arm(due: number): void {
    this.#timer?.cancel();
    this.#timerDue = due;
    this.#timer = this.#clock.setTimer(() => this.#fire(), due - this.#clock.now(), true);
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerDue = Number.POSITIVE_INFINITY;
    const now = this.#clock.now();
    let next = Number.POSITIVE_INFINITY;
    for (const entry of this.#pending) {
      if (entry.due <= now) {
        this.#pending.delete(entry);
        entry.expire();
      } else if (entry.due < next) next = entry.due;
    }
    if (next !== Number.POSITIVE_INFINITY) this.#arm(next);
  }
}
