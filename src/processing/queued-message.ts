import { MessageExtras } from "./message-extras.js";
import type { StateLinks } from "./message-lists.js";
import type { MessageProcessingCompleted, ProcessingContext } from "./options.js";

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

// A message's state and attempt count share one small integer, `attempts * 4 + state code`, to
// keep the object a field smaller: its size is what a tick costs most.
const PENDING = 0;
/** In progress and in the in-progress list. */
const IN_PROGRESS = 1;
const COMPLETED = 2;
/** In progress while its processor call has not returned: in no list yet (most complete before). */
const STARTING = 3;
const STATE_OF_CODE: readonly MessageState[] = [
  MessageState.Pending,
  MessageState.InProgress,
  MessageState.Completed,
  MessageState.InProgress,
];

/**
 * One message held by the queue: its data and its links in the pending or in-progress list. It is
 * also the handle `add()` returns and the context of its first attempt (retries, which are rare,
 * get a context of their own), so that a message without limits costs one small object. Anything
 * only some messages need lives in its {@link MessageExtras}.
 */
export class QueuedMessage<T> implements MessageHandle<T>, ProcessingContext, StateLinks<QueuedMessage<T>> {
  #status = PENDING;
  prev: QueuedMessage<T> | undefined = undefined;
  next: QueuedMessage<T> | undefined = undefined;
  /** Timestamps, arrival links and abort state; undefined until one of them is needed. */
  extras: MessageExtras<T> | undefined = undefined;

  /** Holds `message` with the completion callback and context it was added with. */
  constructor(
    readonly message: T,
    readonly onCompleted: MessageProcessingCompleted<T, unknown> | undefined,
    readonly context: unknown,
  ) {}

  /** Where the message is in its life. */
  get state(): MessageState {
    return STATE_OF_CODE[this.#status % 4]!;
  }

  /** How many processing attempts have started. */
  get attempts(): number {
    return Math.floor(this.#status / 4);
  }

  /** As the context of the first attempt: always 1 (later attempts have a context of their own). */
  get attempt(): number {
    return 1;
  }

  /** The message's signal, created on first read: aborted when it times out or is cancelled. */
  get signal(): AbortSignal {
    return this.withExtras().signal;
  }

  /** True once the queue aborted the message (timeout or cancel). */
  get aborted(): boolean {
    return this.extras?.aborted === true;
  }

  /** True while waiting for a tick. */
  get isPending(): boolean {
    return this.#status % 4 === PENDING;
  }

  /** True once its completion callback has been called (or is running). */
  get isCompleted(): boolean {
    return this.#status % 4 === COMPLETED;
  }

  /** True while in progress with its processor call not returned yet: it is in no list. */
  get isStarting(): boolean {
    return this.#status % 4 === STARTING;
  }

  /** True while attempt number `attempt` runs: a completion from any other one is stale. */
  isRunning(attempt: number): boolean {
    const code = this.#status - attempt * 4;
    return code === STARTING || code === IN_PROGRESS;
  }

  /** Moves a pending message into progress, starting; returns the number of the attempt. */
  startAttempt(): number {
    // Pending, its code is 0: the status is the attempt count times 4.
    const status = this.#status + 4 + STARTING;
    this.#status = status;
    return (status - STARTING) / 4;
  }

  /** Records that a starting message has entered the in-progress list. */
  markListed(): void {
    this.#status -= STARTING - IN_PROGRESS;
  }

  /** Sends a message in progress back to pending, for a retry. */
  backToPending(): void {
    this.#status = this.#status - (this.#status % 4) + PENDING;
  }

  /** Marks the message completed. */
  markCompleted(): void {
    this.#status = this.#status - (this.#status % 4) + COMPLETED;
  }

  /** The message's extras, created if it has none yet. */
  withExtras(): MessageExtras<T> {
    let extras = this.extras;
    if (extras === undefined) {
      extras = new MessageExtras(this);
      this.extras = extras;
    }
    return extras;
  }
}
