import type rhea from "rhea";

/**
 * Settles deliveries so that rhea never merges two different outcomes into one disposition.
 * rhea 3.0.5 writes a run's pending dispositions as ranges, and compares outcomes only from a
 * range's second member on: a delivery settled next to another with another outcome is told
 * that one's. Accepted outcomes, all alike, go out together; any other goes alone, in a later
 * turn of the event loop, after rhea has written what came before it. One writer serves a
 * session, whose deliveries share one sequence of ids.
 */
export class DispositionWriter {
  readonly #waiting: (() => void)[] = [];

  /** Settles `delivery` with `outcome`; `accepted` tells whether it is the `accepted` outcome. */
  settle(delivery: rhea.Delivery, outcome: unknown, accepted: boolean): void {
    if (accepted && this.#waiting.length === 0) {
      delivery.update(true, outcome);
      return;
    }
    this.#waiting.push(() => delivery.update(true, outcome));
    if (this.#waiting.length === 1) setImmediate(() => this.#next());
  }

  #next(): void {
    this.#waiting.shift()?.();
    if (this.#waiting.length > 0) setImmediate(() => this.#next());
  }
}
