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

/** Marks a message whose signal has not been aborted. */
const NOT_ABORTED: unique symbol = Symbol("not aborted");

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
  // Created on first use of `signal`: most processors never read it, and AbortController is costly.
  #controller: AbortController | undefined = undefined;
  #abortReason: unknown = NOT_ABORTED;

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
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.aborted) this.#abort(this.#controller);
    }
    return this.#controller.signal;
  }

  /** True once the queue aborted the message (timeout or cancel). */
  get aborted(): boolean {
    return this.#abortReason !== NOT_ABORTED;
  }

  /** Aborts the message's signal once; `reason` undefined gives the platform's AbortError. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.#abortReason = reason;
    if (this.#controller !== undefined) this.#abort(this.#controller);
  }

  #abort(controller: AbortController): void {
    if (this.#abortReason === undefined) controller.abort();
    else controller.abort(this.#abortReason);
  }
}
