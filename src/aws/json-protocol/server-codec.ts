import type { QueueErrorCode } from "../../core/errors.js";
import { QueueError } from "../../core/errors.js";
import { AwsError } from "../aws-error.js";
import type { HttpHeaders } from "../sigv4/headers.js";
import { getHeader } from "../sigv4/headers.js";
import { bodyText } from "./http-body.js";
import { readShape, ShapeError, writeShape } from "./shape-codec.js";
import type { SqsErrorName } from "./sqs-errors.js";
import { sqsError } from "./sqs-errors.js";
import type { SqsOperation, SqsOutput, SqsRequest } from "./sqs-operations.js";
import { AWS_JSON_1_0, isSqsOperation, SQS_TARGET_PREFIX } from "./sqs-operations.js";
import { SQS_SCHEMAS } from "./sqs-schemas.js";

/**
 * The operation named by `X-Amz-Target` (`AmazonSQS.<Operation>`). A missing, foreign or unknown
 * target fails with SQS's `UnsupportedOperation`.
 */
export function parseSqsTarget(target: string | undefined): SqsOperation {
  if (target === undefined || target === "") {
    throw sqsError("UnsupportedOperation", "The request has no X-Amz-Target header naming an operation.");
  }
  const operation = target.startsWith(SQS_TARGET_PREFIX) ? target.slice(SQS_TARGET_PREFIX.length) : "";
  if (!isSqsOperation(operation)) {
    throw sqsError("UnsupportedOperation", `${truncate(target)} is not an operation of this service.`);
  }
  return operation;
}

/**
 * Checks that a content type is AWS JSON 1.0 (parameters such as `charset` allowed); anything
 * else, the AWS query protocol's form encoding included, fails with `UnsupportedMediaType` (415).
 */
export function checkSqsContentType(contentType: string | undefined): void {
  if (contentType?.split(";", 1)[0]?.trim().toLowerCase() === AWS_JSON_1_0) return;
  throw sqsError(
    "UnsupportedMediaType",
    `This endpoint speaks the AWS JSON 1.0 protocol only: Content-Type must be ${AWS_JSON_1_0}, not ${
      contentType === undefined ? "absent" : `'${truncate(contentType)}'`
    }.`,
  );
}

/**
 * Decodes a request: content type, target, then the JSON body checked against the operation's
 * input (a missing required member answers `MissingParameter`, a wrongly typed one
 * `InvalidParameterValue`, a body that is not a JSON object `SerializationException`). Binary
 * values come back as bytes; an empty body reads as `{}`. Throws {@link AwsError}s only.
 */
export function decodeSqsRequest(headers: HttpHeaders, body: string | Uint8Array): SqsRequest {
  checkSqsContentType(getHeader(headers, "content-type"));
  const operation = parseSqsTarget(getHeader(headers, "x-amz-target"));
  const text = bodyText(body);
  let parsed: unknown;
  try {
    parsed = text.trim() === "" ? {} : JSON.parse(text);
  } catch (error) {
    throw sqsError(
      "SerializationException",
      `The request body is not valid JSON: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw sqsError("SerializationException", "The request body must be a JSON object.");
  }
  return checkedRequest(operation, parsed);
}

/**
 * An operation's input, whichever protocol carried it, checked against the model: a missing
 * required member answers `MissingParameter`, a wrongly typed one `InvalidParameterValue`.
 */
export function checkedRequest(operation: SqsOperation, input: unknown): SqsRequest {
  try {
    return {
      operation,
      input: readShape(input, SQS_SCHEMAS[operation].input, { enforceRequired: true }),
    } as SqsRequest;
  } catch (error) {
    if (!(error instanceof ShapeError)) throw error;
    throw sqsError(error.problem === "missing" ? "MissingParameter" : "InvalidParameterValue", error.message);
  }
}

/** Encodes an operation's result as the JSON body of a 200 response (bytes as base64). */
export function encodeSqsResponse<Op extends SqsOperation>(operation: Op, output: SqsOutput<Op>): string {
  return writeShape(output, SQS_SCHEMAS[operation].output);
}

/** An encoded error response. */
export interface EncodedSqsError {
  readonly status: number;
  /** `content-type`, `x-amzn-query-error` and, when given, `x-amzn-requestid`. */
  readonly headers: Readonly<Record<string, string>>;
  /** `{"__type": ..., "message": ...}`. */
  readonly body: string;
  /** The error as answered, for logging. */
  readonly error: AwsError;
}

/** The SQS error a server answers for a QueueError that is not already an AwsError. */
const QUEUE_ERROR_ANSWERS: Partial<Record<QueueErrorCode, SqsErrorName>> = {
  QueueNotFound: "QueueDoesNotExist",
  QueueAlreadyExists: "QueueNameExists",
  InvalidReceipt: "ReceiptHandleIsInvalid",
  Throttled: "RequestThrottled",
  Validation: "InvalidParameterValue",
  MessageTooLarge: "InvalidParameterValue",
  Unsupported: "UnsupportedOperation",
  Authentication: "InvalidClientTokenId",
  Timeout: "ServiceUnavailable",
  ClientClosed: "ServiceUnavailable",
};

/**
 * Encodes any error as an SQS error response with both `__type` and `x-amzn-query-error`, as
 * query-compatible SQS does. An AwsError is answered as it is; other QueueErrors by their code;
 * anything else as `InternalFailure`, without its message, which may hold internals.
 */
export function encodeSqsError(error: unknown, requestId?: string): EncodedSqsError {
  const answer = asAwsError(error);
  const headers: Record<string, string> = {
    "content-type": AWS_JSON_1_0,
    "x-amzn-query-error": `${answer.queryCode};${answer.fault}`,
  };
  if (requestId !== undefined) headers["x-amzn-requestid"] = requestId;
  return {
    status: answer.status,
    headers,
    body: JSON.stringify({ __type: answer.type, message: answer.message }),
    error: answer,
  };
}

/** The AWS error a server answers for any error: an AwsError as it is, other QueueErrors by their code, anything else as `InternalFailure`. */
export function asAwsError(error: unknown): AwsError {
  if (error instanceof AwsError) return error;
  if (error instanceof QueueError) {
    const name = QUEUE_ERROR_ANSWERS[error.code];
    if (name !== undefined) return sqsError(name, error.message, { cause: error });
  }
  return sqsError("InternalFailure", undefined, { cause: error });
}

function truncate(text: string): string {
  return text.length > 100 ? `${text.slice(0, 100)}...` : text;
}
