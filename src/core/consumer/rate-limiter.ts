import type { Clock } from "../clock.js";
import type { RateLimit } from "./options.js";

/** At most `max` starts in any window of `perMs`: the times of the last `max` starts, in a ring. */
export class RateLimiter {
  readonly #limit: RateLimit;
  readonly #clock: Clock;
  readonly #starts: number[] = [];
  #oldest = 0;

  constructor(limit: RateLimit, clock: Clock) {
    this.#limit = limit;
    this.#clock = clock;
  }

  /** Records a start and answers 0 when one is allowed now; otherwise how long until one is, recording nothing. */
  tryStart(): number {
    const now = this.#clock.now();
    if (this.#starts.length < this.#limit.max) {
      this.#starts.push(now);
      return 0;
    }
    const wait = this.#starts[this.#oldest]! + this.#limit.perMs - now;
    if (wait > 0) return wait;
    this.#starts[this.#oldest] = now;
    this.#oldest = (this.#oldest + 1) % this.#limit.max;
    return 0;
  }
}
