import { QueueError } from "../core/errors.js";

/** Thrown or rejected by a processor to ask for another attempt: the message ends as `RetryableError`. */
export class RetryableError extends Error {
  override readonly name = "RetryableError";
  /** The marker {@link isRetryable} looks for; any error object may carry it. */
  readonly retryable = true;

  /** Wraps the failure of one attempt; `cause` keeps the underlying error. */
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * True when a processor's failure asks for a retry: a {@link RetryableError}, any object with
 * `retryable: true`, or a transient {@link QueueError} (throttling, timeouts, lost connections).
 */
export function isRetryable(failure: unknown): boolean {
  if (failure instanceof QueueError) return failure.isTransient;
  return (
    typeof failure === "object" && failure !== null && (failure as { retryable?: unknown }).retryable === true
  );
}
