import type { ProcessingContext } from "./options.js";
import type { QueuedMessage } from "./queued-message.js";

/**
 * What the processor gets for one attempt. Kept to two fields (the signal belongs to the message,
 * created on first use) because one is allocated per attempt on the hot path.
 */
export class AttemptContext<T> implements ProcessingContext {
  /** Context of attempt number `attempt` of `item`. */
  constructor(
    readonly item: QueuedMessage<T>,
    readonly attempt: number,
  ) {}

  /** The message's signal: aborted when it times out or is cancelled. */
  get signal(): AbortSignal {
    return this.item.signal;
  }
}
