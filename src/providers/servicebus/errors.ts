import { QueueError, type QueueErrorCode, SOCKET_ERROR_CODES } from "../../core/errors.js";

/** The SDK's error codes (`ServiceBusError.code`) and what each is in queue-runtime's words. */
const CODES: Readonly<Record<string, QueueErrorCode>> = {
  MessagingEntityNotFound: "QueueNotFound",
  MessagingEntityAlreadyExists: "QueueAlreadyExists",
  MessageLockLost: "InvalidReceipt",
  MessageNotFound: "InvalidReceipt",
  SessionCannotBeLocked: "SessionLocked",
  SessionLockLost: "SessionLockLost",
  MessageSizeExceeded: "MessageTooLarge",
  UnauthorizedAccess: "Authentication",
  ServiceBusy: "Throttled",
  QuotaExceeded: "Throttled",
  ServiceTimeout: "Timeout",
  ServiceCommunicationProblem: "ConnectionFailed",
  // core-amqp's own names, for errors the Service Bus layer passes through untranslated.
  ServiceUnavailableError: "Timeout",
  OperationTimeoutError: "Timeout",
  ServerBusyError: "Throttled",
  UnauthorizedError: "Authentication",
};

/** HTTP statuses of the management (ATOM) API. */
const STATUSES: Readonly<Record<number, QueueErrorCode>> = {
  401: "Authentication",
  403: "PermissionDenied",
  404: "QueueNotFound",
  409: "QueueAlreadyExists",
  429: "Throttled",
  503: "Throttled",
};

/** What the SDK's errors carry, all optional: ServiceBusError, MessagingError, RestError, AbortError. */
interface SdkError {
  readonly name?: unknown;
  readonly code?: unknown;
  readonly statusCode?: unknown;
  readonly message?: unknown;
}

/** Hides secrets (the SAS key) from text that may reach a log. */
export type Redact = (text: string) => string;

/** True when `error` is the SDK's (or an AbortController's) abort. */
export function isAbort(error: unknown): boolean {
  return (error as SdkError | null)?.name === "AbortError";
}

/** The SDK's error code of `error`, if it has one. */
export function sdkCode(error: unknown): string | undefined {
  const code = (error as SdkError | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/**
 * A QueueError for whatever the SDK threw while doing `what`: its code mapped, its message kept
 * (with secrets redacted) and the SDK's code as `providerCode`. QueueErrors pass unchanged.
 */
export function fromSdkError(error: unknown, what: string, redact: Redact): QueueError {
  if (error instanceof QueueError) return error;
  const sdk = (error ?? {}) as SdkError;
  const text = redact(typeof sdk.message === "string" ? sdk.message : String(error));
  const code = sdkCode(error);
  const status = typeof sdk.statusCode === "number" ? sdk.statusCode : undefined;
  const mapped =
    (code === undefined ? undefined : CODES[code]) ??
    (status === undefined ? undefined : STATUSES[status]) ??
    (code !== undefined && SOCKET_ERROR_CODES.has(code) ? "ConnectionFailed" : undefined) ??
    // The SDK reports a second settlement of one delivery, and rhea-promise a connection that
    // could not be made, with plain Errors.
    (/already settled|deleted or already/i.test(text) ? "InvalidReceipt" : undefined) ??
    // The service's argument and not-implemented errors reach the SDK's callers as GeneralError, named in the text.
    (/^Argument(OutOfRange)?Error:/.test(text) ? "Validation" : undefined) ??
    (/^NotImplementedError:/.test(text) ? "Unsupported" : undefined) ??
    (/failed to connect|connection (was )?(closed|lost|disconnected)/i.test(text)
      ? "ConnectionFailed"
      : undefined);
  const options = { cause: error, ...(code === undefined ? {} : { providerCode: code }) };
  if (mapped !== undefined) return new QueueError(mapped, `${what}: ${text}`, options);
  const retryable = (error as { retryable?: unknown } | null)?.retryable === true;
  return new QueueError("Provider", `${what}: ${text}`, { ...options, isTransient: retryable });
}
