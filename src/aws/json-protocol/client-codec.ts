import { QueueError } from "../../core/errors.js";
import { AwsError } from "../aws-error.js";
import type { HttpHeaders } from "../sigv4/headers.js";
import { getHeader } from "../sigv4/headers.js";
import { classifyAwsError } from "./error-classification.js";
import { bodyText } from "./http-body.js";
import { readShape, ShapeError, writeShape } from "./shape-codec.js";
import { findSqsError, shapeName } from "./sqs-errors.js";
import type { SqsInput, SqsOperation, SqsOutput } from "./sqs-operations.js";
import { AWS_JSON_1_0, sqsTarget } from "./sqs-operations.js";
import { SQS_SCHEMAS } from "./sqs-schemas.js";

/** The headers and body of an encoded SQS request, ready to be signed and sent as `POST /`. */
export interface EncodedSqsRequest {
  readonly headers: {
    readonly "content-type": string;
    readonly "x-amz-target": string;
    readonly "x-amzn-query-mode": "true";
  };
  readonly body: string;
}

/**
 * Encodes a request as AWS JSON 1.0, bytes as base64. `x-amzn-query-mode: true` is sent as the
 * AWS SDKs do for SQS (its `awsQueryCompatible` trait), so errors carry `x-amzn-query-error`.
 */
export function encodeSqsRequest<Op extends SqsOperation>(
  operation: Op,
  input: SqsInput<Op>,
): EncodedSqsRequest {
  return {
    headers: {
      "content-type": AWS_JSON_1_0,
      "x-amz-target": sqsTarget(operation),
      "x-amzn-query-mode": "true",
    },
    body: writeShape(input, SQS_SCHEMAS[operation].input),
  };
}

/**
 * Decodes an SQS response: on a 2xx status the operation's result (base64 turned into bytes, an
 * empty body read as `{}`); on any other status it throws the {@link AwsError} the body describes.
 */
export function decodeSqsResponse<Op extends SqsOperation>(
  operation: Op,
  status: number,
  headers: HttpHeaders,
  body: string | Uint8Array,
): SqsOutput<Op> {
  if (status < 200 || status > 299) throw decodeSqsError(status, headers, body);
  const text = bodyText(body);
  let parsed: unknown;
  try {
    parsed = text.trim() === "" ? {} : JSON.parse(text);
    return readShape<SqsOutput<Op>>(parsed, SQS_SCHEMAS[operation].output, { enforceRequired: false });
  } catch (error) {
    const reason =
      error instanceof ShapeError || error instanceof SyntaxError ? error.message : String(error);
    throw new QueueError("Provider", `malformed ${operation} response: ${reason}`, {
      cause: error,
      isTransient: false,
      providerCode: "MalformedResponse",
    });
  }
}

/**
 * The {@link AwsError} of an error response. The name is the `x-amzn-query-error` code or the
 * `__type` resolved to SQS's own error name where one matches (as the AWS SDKs do); the
 * queue-runtime code follows from it (`QueueDoesNotExist` → `QueueNotFound`, throttling →
 * transient `Throttled`, 5xx → transient `Provider`, ...). Bodies that are not JSON (a proxy's
 * HTML page) are classified by status alone.
 */
export function decodeSqsError(status: number, headers: HttpHeaders, body: string | Uint8Array): AwsError {
  const fields = errorFields(bodyText(body));
  const [headerCode, headerFault] = splitQueryError(getHeader(headers, "x-amzn-query-error"));
  const type = fields.type ?? getHeader(headers, "x-amzn-errortype");
  const known = findSqsError(headerCode, type);
  const name = known ?? headerCode ?? (type === undefined ? undefined : shapeName(type)) ?? `Http${status}`;
  const message = fields.message ?? `${name} (HTTP ${status})`;
  const { code, transient } = classifyAwsError(name, status, message);
  const fault = headerFault ?? (status >= 500 ? "Receiver" : "Sender");
  const retryAfterMs = retryAfter(getHeader(headers, "retry-after"));
  return new AwsError(code, message, {
    awsCode: name,
    type: type ?? name,
    queryCode: headerCode ?? name,
    status,
    fault,
    isTransient: transient,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...requestIdOf(headers),
  });
}

function errorFields(text: string): { type?: string; message?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof parsed !== "object" || parsed === null) return {};
  const record = parsed as Record<string, unknown>;
  const type = firstString(record.__type, record.code, record.Code);
  const message = firstString(record.message, record.Message, record.errorMessage);
  return { ...(type === undefined ? {} : { type }), ...(message === undefined ? {} : { message }) };
}

function firstString(...values: unknown[]): string | undefined {
  return values.find((value): value is string => typeof value === "string" && value !== "");
}

function splitQueryError(value: string | undefined): [string | undefined, "Sender" | "Receiver" | undefined] {
  if (value === undefined) return [undefined, undefined];
  const semicolon = value.indexOf(";");
  if (semicolon === -1) return [value.trim() || undefined, undefined];
  const fault = value.slice(semicolon + 1).trim();
  return [
    value.slice(0, semicolon).trim() || undefined,
    fault === "Sender" || fault === "Receiver" ? fault : undefined,
  ];
}

function retryAfter(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined;
}

function requestIdOf(headers: HttpHeaders): { requestId?: string } {
  const requestId = getHeader(headers, "x-amzn-requestid");
  return requestId === undefined ? {} : { requestId };
}
