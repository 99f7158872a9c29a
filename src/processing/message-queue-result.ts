/** How the processing of a message ended (the seed's `MESSAGE_QUEUE_RESULT`). */
export const MessageQueueResult = {
  /** The message was processed. */
  Success: "Success",
  /** Processing failed for good. */
  Error: "Error",
  /** Processing failed but may succeed if tried again; the queue retries up to `maxRetryCount` times. */
  RetryableError: "RetryableError",
  /** The message stayed in the queue or in processing longer than its limit. */
  Timeout: "Timeout",
  /** The message was removed by `removeAll()` or `stop()` before it completed. */
  Cancelled: "Cancelled",
} as const;

/** How the processing of a message ended. */
export type MessageQueueResult = (typeof MessageQueueResult)[keyof typeof MessageQueueResult];

/** Every {@link MessageQueueResult}, for validation and iteration. */
export const MESSAGE_QUEUE_RESULTS: readonly MessageQueueResult[] = Object.values(MessageQueueResult);

/** True when `value` is one of the {@link MessageQueueResult} values. */
export function isMessageQueueResult(value: unknown): value is MessageQueueResult {
  // Compared one by one: it runs for every completion that is not Success, and this beats a Set lookup.
  return (
    value === MessageQueueResult.Success ||
    value === MessageQueueResult.Error ||
    value === MessageQueueResult.RetryableError ||
    value === MessageQueueResult.Timeout ||
    value === MessageQueueResult.Cancelled
  );
}

/** The final outcome of one message: what `addAsync` resolves to. */
export interface MessageOutcome {
  /** How processing ended; never `RetryableError`, which becomes `Error` once retries are used up. */
  readonly result: MessageQueueResult;
  /** What the processor (or the queue, for `Timeout`) gave as the cause; `undefined` when none. */
  readonly reason: unknown;
}
