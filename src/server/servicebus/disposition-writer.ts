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
      finalSettle(delivery, outcome);
      return;
    }
    this.#waiting.push(() => finalSettle(delivery, outcome));
    if (this.#waiting.length === 1) setImmediate(() => this.#next());
  }

  #next(): void {
    this.#waiting.shift()?.();
    if (this.#waiting.length > 0) setImmediate(() => this.#next());
  }
}

/**
 * Settles a delivery for good. A receiver settling second (peek-lock) has settled by the time
 * the server does and sends nothing more, so rhea, which frees a delivery only once both sides
 * have settled it, would keep it: after 2,048 on one session its buffer is full and the next
 * send throws. The delivery is marked settled on both sides, as the protocol has it then.
 */
function finalSettle(delivery: rhea.Delivery, outcome: unknown): void {
  delivery.update(true, outcome);
  (delivery as unknown as { remote_settled: boolean }).remote_settled = true;
}
