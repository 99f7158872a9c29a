/** Every error code a queue operation can fail with. */
export const QUEUE_ERROR_CODES = [
  "QueueNotFound",
  "QueueAlreadyExists",
  "MessageNotFound",
  "InvalidReceipt",
  "SessionLocked",
  "SessionLockLost",
  "SessionNotFound",
  "NoSessionAvailable",
  "Timeout",
  "ConnectionFailed",
  "Throttled",
  "Authentication",
  "PermissionDenied",
  "MessageTooLarge",
  "BatchTooLarge",
  "PartialBatchFailure",
  "Validation",
  "Configuration",
  "Unsupported",
  "Provider",
  "ClientClosed",
] as const;

/** The code of a {@link QueueError}. */
export type QueueErrorCode = (typeof QUEUE_ERROR_CODES)[number];

/** Codes that describe a passing condition: an operation failing with one may succeed if tried again. */
const TRANSIENT_CODES: ReadonlySet<QueueErrorCode> = new Set([
  "SessionLocked",
  "NoSessionAvailable",
  "Timeout",
  "ConnectionFailed",
  "Throttled",
]);

/** The outcome of one entry of a batch call: its id, or the error that entry failed with. */
export type BatchEntryResult = { ok: true; messageId: string } | { ok: false; error: QueueError };

/** Options of a {@link QueueError} beyond its code and message. */
export interface QueueErrorOptions {
  /** Overrides the transience implied by the code (only `Provider` errors should need it). */
  isTransient?: boolean;
  /** How long the service asked the caller to wait before trying again. */
  retryAfterMs?: number;
  /** The underlying error. */
  cause?: unknown;
  /** Per-entry outcome of a batch call that partly failed. */
  results?: readonly BatchEntryResult[];
  /** A provider's own error code, kept for diagnosis (for example an SQS `__type`). */
  providerCode?: string;
}

/** The one error type of queue-runtime: a code, whether trying again may help, and the cause. */
export class QueueError extends Error {
  override readonly name = "QueueError";
  readonly code: QueueErrorCode;
  readonly isTransient: boolean;
  readonly retryAfterMs: number | undefined;
  readonly results: readonly BatchEntryResult[] | undefined;
  readonly providerCode: string | undefined;

  constructor(code: QueueErrorCode, message: string, options: QueueErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.isTransient = options.isTransient ?? TRANSIENT_CODES.has(code);
    this.retryAfterMs = options.retryAfterMs;
    this.results = options.results;
    this.providerCode = options.providerCode;
  }

  /** True when `error` is a QueueError, optionally with the given code. */
  static is(error: unknown, code?: QueueErrorCode): error is QueueError {
    return error instanceof QueueError && (code === undefined || error.code === code);
  }
}

/** Node's socket errors that mean a server could not be reached or the connection to it broke. */
export const SOCKET_ERROR_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ETIMEDOUT",
  "EPIPE",
]);

/** Wraps anything thrown by a provider into a QueueError, keeping QueueErrors as they are. */
export function toQueueError(error: unknown, fallback: QueueErrorCode = "Provider"): QueueError {
  if (error instanceof QueueError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new QueueError(fallback, message, { cause: error, isTransient: false });
}

/** What `read` answers, or `undefined` when it failed with `QueueNotFound` (what it reads was deleted meanwhile). */
export async function unlessNotFound<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if (QueueError.is(error, "QueueNotFound")) return undefined;
    throw error;
  }
}
