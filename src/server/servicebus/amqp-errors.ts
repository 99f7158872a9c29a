import { QueueError } from "../../core/errors.js";

/** An AMQP error as a detach, a disposition or a management reply carries it. */
export interface AmqpError {
  readonly condition: string;
  readonly description: string;
}

/** The conditions `@azure/core-amqp` maps to the SDK's error codes. */
export const CONDITIONS = {
  notFound: "amqp:not-found",
  entityAlreadyExists: "com.microsoft:entity-already-exists",
  unauthorized: "amqp:unauthorized-access",
  messageLockLost: "com.microsoft:message-lock-lost",
  sessionLockLost: "com.microsoft:session-lock-lost",
  sessionCannotBeLocked: "com.microsoft:session-cannot-be-locked",
  timeout: "com.microsoft:timeout",
  messageNotFound: "com.microsoft:message-not-found",
  sessionNotFound: "com.microsoft:session-not-found",
  messageSizeExceeded: "amqp:link:message-size-exceeded",
  argument: "com.microsoft:argument-error",
  notImplemented: "amqp:not-implemented",
  notAllowed: "amqp:not-allowed",
  invalidField: "amqp:invalid-field",
  decode: "amqp:decode-error",
  internal: "amqp:internal-error",
} as const;

/** Management replies carry an HTTP-like status beside the condition. */
const STATUS: Readonly<Record<string, number>> = {
  [CONDITIONS.notFound]: 404,
  [CONDITIONS.entityAlreadyExists]: 409,
  [CONDITIONS.messageNotFound]: 404,
  [CONDITIONS.sessionNotFound]: 404,
  [CONDITIONS.unauthorized]: 401,
  [CONDITIONS.messageLockLost]: 410,
  [CONDITIONS.sessionLockLost]: 410,
  [CONDITIONS.sessionCannotBeLocked]: 410,
  [CONDITIONS.timeout]: 408,
  [CONDITIONS.argument]: 400,
  [CONDITIONS.decode]: 400,
  [CONDITIONS.messageSizeExceeded]: 413,
  [CONDITIONS.notImplemented]: 501,
  [CONDITIONS.notAllowed]: 400,
  [CONDITIONS.invalidField]: 400,
};

/** An unknown entity, in the words core-amqp turns into `MessagingEntityNotFound`. */
export function entityNotFound(path: string): AmqpError {
  return {
    condition: CONDITIONS.notFound,
    description: `The messaging entity '${path}' could not be found.`,
  };
}

/** The status a management reply gives for an error. */
export function statusOf(error: AmqpError): number {
  return STATUS[error.condition] ?? 500;
}

/** An engine failure as the condition the SDK expects for it; anything unforeseen is an internal error, its message kept. */
export function amqpErrorOf(error: unknown): AmqpError {
  if (!QueueError.is(error)) {
    const description = error instanceof Error ? error.message : String(error);
    return { condition: CONDITIONS.internal, description };
  }
  const condition = (() => {
    switch (error.code) {
      case "QueueNotFound":
        return CONDITIONS.notFound;
      case "QueueAlreadyExists":
        return CONDITIONS.entityAlreadyExists;
      case "InvalidReceipt":
        return CONDITIONS.messageLockLost;
      case "SessionLockLost":
        return CONDITIONS.sessionLockLost;
      case "SessionLocked":
        return CONDITIONS.sessionCannotBeLocked;
      case "NoSessionAvailable":
      case "Timeout":
        return CONDITIONS.timeout;
      case "MessageNotFound":
        return CONDITIONS.messageNotFound;
      case "SessionNotFound":
        return CONDITIONS.sessionNotFound;
      case "MessageTooLarge":
        return CONDITIONS.messageSizeExceeded;
      case "Validation":
        return CONDITIONS.argument;
      case "Unsupported":
        return CONDITIONS.notImplemented;
      default:
        return CONDITIONS.internal;
    }
  })();
  // core-amqp tells a missing entity from an unavailable service by these words only.
  const description =
    error.code === "QueueNotFound"
      ? `The messaging entity of this request could not be found: ${error.message}`
      : error.message;
  return { condition, description };
}
