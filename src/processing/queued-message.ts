import type { ArrivalLinks, StateLinks } from "./message-lists.js";
import type { MessageProcessingCompleted } from "./options.js";

/** Where a message is in its life: waiting for a tick, being processed, or done. */
export const MessageState = {
  /** Waiting for the next tick (new, or back after a retryable error). */
  Pending: "Pending",
  /** Handed to the processor, which has not completed it yet. */
  InProgress: "InProgress",
  /** Its completion callback has run; the queue no longer holds it. */
  Completed: "Completed",
} as const;

/** Where a message is in its life. */
export type MessageState = (typeof MessageState)[keyof typeof MessageState];

/** What `add()` returns: a read-only view of one message in the queue. */
export interface MessageHandle<T> {
  /** The message as it was added. */
  readonly message: T;
  /** Where the message is in its life. */
  readonly state: MessageState;
  /** How many processing attempts have started (at most `maxRetryCount + 1`). */
  readonly attempts: number;
}

/** What `abort()` leaves when no signal was asked for yet: the reason to abort one with later. */
class Aborted {
  constructor(readonly reason: unknown) {}
}

const CANCELLED = new Aborted(undefined);

/** One message held by the queue: its data, its place in the lists, its running attempt and its signal. */
export class QueuedMessage<T>
  implements MessageHandle<T>, StateLinks<QueuedMessage<T>>, ArrivalLinks<QueuedMessage<T>>
{
  state: MessageState = MessageState.Pending;
  attempts = 0;
  /**
   * When the current attempt started (its tick's time); undefined while no processing limit needs
   * it (undefined rather than NaN, so that V8 keeps no boxed number per message).
   */
  processingStartedAt: number | undefined = undefined;
  /** Position in the pending list, so a tick only takes messages that were pending when it began. */
  pendingTicket = 0;
  /** The number of the attempt that may still complete it; 0 when none may. */
  current = 0;
  prev: QueuedMessage<T> | undefined = undefined;
  next: QueuedMessage<T> | undefined = undefined;
  older: QueuedMessage<T> | undefined = undefined;
  newer: QueuedMessage<T> | undefined = undefined;
  // The controller is created on first use of `signal`: most processors never read it, and an
  // AbortController is costly. One field for both states keeps every message a little smaller.
  #abort: AbortController | Aborted | undefined = undefined;

  /** Holds `message` with the completion callback and context it was added with. */
  constructor(
    readonly message: T,
    /** When the message was added; undefined while no enqueue limit needs it. */
    public enqueuedAt: number | undefined,
    /** Position in arrival order, so `removeAll()` leaves alone what its own callbacks add. */
    readonly arrivalTicket: number,
    readonly onCompleted: MessageProcessingCompleted<T, unknown> | undefined,
    readonly context: unknown,
  ) {}

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
