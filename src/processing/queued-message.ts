import type { ArrivalLinks, StateLinks } from "./message-lists.js";
import type { MessageProcessingCompleted } from "./options.js";
import type { ProcessingAttempt } from "./processing-attempt.js";

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

/** One message held by the queue: its data, its place in the lists and its current attempt. */
export class QueuedMessage<T>
  implements MessageHandle<T>, StateLinks<QueuedMessage<T>>, ArrivalLinks<QueuedMessage<T>>
{
  state: MessageState = MessageState.Pending;
  attempts = 0;
  /**
   * When the current attempt started (its tick's time); undefined while no processing limit needs
   * it. Left untyped-by-default rather than NaN so V8 keeps no boxed number per message.
   */
  processingStartedAt: number | undefined = undefined;
  /** Position in the pending list, so a tick only takes messages that were pending when it began. */
  pendingTicket = 0;
  /** The attempt that may still complete it; `undefined` when none may. */
  current: ProcessingAttempt<T> | undefined = undefined;
  prev: QueuedMessage<T> | undefined = undefined;
  next: QueuedMessage<T> | undefined = undefined;
  older: QueuedMessage<T> | undefined = undefined;
  newer: QueuedMessage<T> | undefined = undefined;

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
}
