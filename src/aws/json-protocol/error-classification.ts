import type { QueueErrorCode } from "../../core/errors.js";
import { sqsErrorSpec } from "./sqs-errors.js";

/** What an AWS error means to queue-runtime: its code, and whether trying again may help. */
export interface ErrorClass {
  readonly code: QueueErrorCode;
  readonly transient: boolean;
}

// Names the AWS SDKs treat as throttling, clock skew or credentials trouble, beyond SQS's own.
const THROTTLING: ReadonlySet<string> = new Set([
  "Throttling",
  "ThrottlingException",
  "ThrottledException",
  "RequestThrottledException",
  "TooManyRequestsException",
  "RequestLimitExceeded",
  "BandwidthLimitExceeded",
  "LimitExceededException",
  "SlowDown",
  "PriorRequestNotComplete",
]);
const AUTHENTICATION: ReadonlySet<string> = new Set([
  "ExpiredToken",
  "ExpiredTokenException",
  "InvalidAccessKeyId",
  "InvalidSignatureException",
  "InvalidToken",
  "RequestTimeTooSkewed",
  "RequestInTheFuture",
  "UnrecognizedClientException",
  "AuthFailure",
]);
const PERMISSION: ReadonlySet<string> = new Set([
  "AccessDenied",
  "AccessDeniedException",
  "NotAuthorized",
  "OptInRequired",
]);
const VALIDATION: ReadonlySet<string> = new Set([
  "ValidationError",
  "ValidationException",
  "InvalidParameterCombination",
  "InvalidQueryParameter",
  "MalformedQueryString",
  "MissingAction",
]);
const UNSUPPORTED: ReadonlySet<string> = new Set(["InvalidAction", "UnknownOperationException"]);
const TRANSIENT_STATUS: ReadonlySet<number> = new Set([500, 502, 503, 504]);
const MESSAGE_TOO_LARGE = /must be shorter than \d+ bytes/i;

/**
 * Classifies an AWS error by its name (as SDKs report it), HTTP status and message: SQS's own
 * errors by their table entry, common AWS names by the SDKs' lists, anything else by status
 * (429 throttled, 500/502/503/504 transient provider failures).
 */
export function classifyAwsError(name: string, status: number, message: string): ErrorClass {
  if (name === "InvalidParameterValue" && MESSAGE_TOO_LARGE.test(message)) {
    return { code: "MessageTooLarge", transient: false };
  }
  const spec = sqsErrorSpec(name);
  if (spec !== undefined) return { code: spec.code, transient: spec.transient ?? spec.code === "Throttled" };
  if (THROTTLING.has(name) || status === 429) return { code: "Throttled", transient: true };
  if (AUTHENTICATION.has(name)) return { code: "Authentication", transient: false };
  if (PERMISSION.has(name)) return { code: "PermissionDenied", transient: false };
  if (VALIDATION.has(name)) return { code: "Validation", transient: false };
  if (UNSUPPORTED.has(name)) return { code: "Unsupported", transient: false };
  if (name === "InternalError" || name === "InternalFailure" || TRANSIENT_STATUS.has(status)) {
    return { code: "Provider", transient: true };
  }
  return { code: "Provider", transient: false };
}
