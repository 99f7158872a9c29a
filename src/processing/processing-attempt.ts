import type { MessageQueueResult } from "./message-queue-result.js";
import type { CompleteProcessing, ProcessingContext } from "./options.js";
import type { QueuedMessage } from "./queued-message.js";

/** What the queue does when an attempt reports its result. */
export type AttemptFinisher<T> = (
  attempt: ProcessingAttempt<T>,
  result: MessageQueueResult,
  reason: unknown,
) => void;

/**
 * One processing attempt of a message: the context handed to the processor and the identity a
 * completion is checked against, so a completion from an earlier or ended attempt is ignored.
 */
export class ProcessingAttempt<T> implements ProcessingContext {
  /** Bound to this attempt, so it can be passed around freely. */
  readonly complete: CompleteProcessing;
  /** True once the queue aborted this attempt (timeout or cancel). */
  aborted = false;
  // Created on first use of `signal`: most processors never read it, and AbortController is costly.
  #controller: AbortController | undefined = undefined;
  #abortReason: unknown = undefined;

  /** Starts attempt number `attempt` of `item`; `finish` receives its completion. */
  constructor(
    readonly item: QueuedMessage<T>,
    readonly attempt: number,
    finish: AttemptFinisher<T>,
  ) {
    this.complete = (result, reason) => finish(this, result, reason);
  }

  /** Aborted when the attempt times out (reason: a `Timeout` QueueError) or is cancelled (an AbortError). */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.aborted) this.#abort(this.#controller);
    }
    return this.#controller.signal;
  }

  /** Aborts the attempt's signal once; `reason` undefined gives the platform's AbortError. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.#abortReason = reason;
    if (this.#controller !== undefined) this.#abort(this.#controller);
  }

  #abort(controller: AbortController): void {
    if (this.#abortReason === undefined) controller.abort();
    else controller.abort(this.#abortReason);
  }
}
