import type { ArrivalLinks } from "./message-lists.js";
import type { QueuedMessage } from "./queued-message.js";

/** What `abort()` leaves when no signal was asked for yet: the reason to abort one with later. */
class Aborted {
  constructor(readonly reason: unknown) {}
}

const CANCELLED = new Aborted(undefined);

/**
 * The part of a message that only some messages need, created on first need: timestamps while a
 * limit is set, the links of the arrival list while an enqueue limit is set, and the abort state.
 * Kept apart so that a message without limits and without a signal stays a small object.
 */
export class MessageExtras<T> implements ArrivalLinks<MessageExtras<T>> {
  /** When the message entered the queue; set while an enqueue limit is set. */
  enqueuedAt = 0;
  /** When its current attempt started; undefined while no processing limit is set. */
  processingStartedAt: number | undefined = undefined;
  older: MessageExtras<T> | undefined = undefined;
  newer: MessageExtras<T> | undefined = undefined;
  // The controller is created on first use of `signal`: most processors never read it, and an
  // AbortController is costly.
  #abort: AbortController | Aborted | undefined = undefined;

  /** The extras of `item`. */
  constructor(readonly item: QueuedMessage<T>) {}

  /**
   * Aborted when the message times out or is cancelled (reason: the `Timeout` QueueError, or an
   * AbortError); one signal serves all attempts, since either ends the message for good.
   */
  get signal(): AbortSignal {
    const state = this.#abort;
    if (state instanceof AbortController) return state.signal;
    const controller = new AbortController();
    if (state !== undefined) abortWith(controller, state.reason);
    this.#abort = controller;
    return controller.signal;
  }

  /** True once the queue aborted the message (timeout or cancel). */
  get aborted(): boolean {
    const state = this.#abort;
    return state instanceof Aborted || state?.signal.aborted === true;
  }

  /** Aborts the message's signal once; `reason` undefined gives the platform's AbortError. */
  abort(reason: unknown): void {
    const state = this.#abort;
    if (state === undefined) this.#abort = reason === undefined ? CANCELLED : new Aborted(reason);
    else if (state instanceof AbortController && !state.signal.aborted) abortWith(state, reason);
  }
}

function abortWith(controller: AbortController, reason: unknown): void {
  if (reason === undefined) controller.abort();
  else controller.abort(reason);
}
