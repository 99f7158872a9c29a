import { QueueError, type QueueErrorCode } from "../../../core/errors.js";

// The SDK names its error from the status alone (atomXmlHelper's getErrorCode): 404
// MessageEntityNotFoundError, 409 MessageEntityAlreadyExistsError, 401 UnauthorizedRequestError,
// 400 ServiceError, 503 ServerBusyError.
const STATUS: Partial<Record<QueueErrorCode, number>> = {
  QueueNotFound: 404,
  QueueAlreadyExists: 409,
  Validation: 400,
  Configuration: 400,
  Authentication: 401,
  PermissionDenied: 403,
  MessageTooLarge: 413,
  Unsupported: 405,
  Throttled: 503,
  ClientClosed: 503,
};

/** The HTTP status Azure answers a failure with: from a QueueError's code, 500 for anything else. */
export function httpStatusOf(error: unknown): number {
  return error instanceof QueueError ? (STATUS[error.code] ?? 500) : 500;
}
