import type { ProcessingContext } from "./options.js";
import type { QueuedMessage } from "./queued-message.js";

/**
 * The context of a retry (attempt 2 and later). The first attempt, by far the most common, uses
 * the message itself as its context; a retry needs its own object so that the context, and the
 * `complete` function bound to it, keep their attempt number.
 */
export class RetryContext<T> implements ProcessingContext {
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
