import type { AwsError } from "../aws-error.js";
import { sqsError } from "./sqs-errors.js";
import type { MessageAttributeValue, MessageSystemAttributeValue } from "./sqs-types.js";

/** Most entries one batch call may carry. */
export const MAX_BATCH_ENTRIES = 10;

/** Most message attributes one message may carry. */
export const MAX_MESSAGE_ATTRIBUTES = 10;

const BATCH_ENTRY_ID = /^[A-Za-z0-9_-]{1,80}$/;
const ATTRIBUTE_NAME = /^[A-Za-z0-9_.-]{1,256}$/;
const RESERVED_ATTRIBUTE_PREFIX = /^(?:aws\.|amazon\.)/i;
const DATA_TYPE = /^(String|Number|Binary)(?:\.[^\s]+)?$/;
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
// XML 1.0 characters, which SQS allows in bodies and string attribute values; lone surrogates are not.
const INVALID_CHARACTER = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

/**
 * Checks a batch's entries as SQS does before looking at any one of them: at least one
 * (`EmptyBatchRequest`), at most ten (`TooManyEntriesInBatchRequest`), ids of 1-80 characters
 * from `[A-Za-z0-9_-]` (`InvalidBatchEntryId`), no id twice (`BatchEntryIdsNotDistinct`).
 */
export function checkBatchEntries(entries: readonly { readonly Id: string }[], entryShape: string): void {
  if (entries.length === 0) {
    throw sqsError("EmptyBatchRequest", `There should be at least one ${entryShape} in the request.`);
  }
  if (entries.length > MAX_BATCH_ENTRIES) {
    throw sqsError(
      "TooManyEntriesInBatchRequest",
      `Maximum number of entries per request are ${MAX_BATCH_ENTRIES}. You have sent ${entries.length}.`,
    );
  }
  const seen = new Set<string>();
  for (const { Id } of entries) {
    if (!BATCH_ENTRY_ID.test(Id)) {
      throw sqsError(
        "InvalidBatchEntryId",
        "A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.",
      );
    }
    if (seen.has(Id)) throw sqsError("BatchEntryIdsNotDistinct", `Id ${Id} repeated.`);
    seen.add(Id);
  }
}

/** The index of the first character SQS refuses in a body or string value, or -1 when there is none. */
export function findInvalidCharacter(text: string): number {
  return text.search(INVALID_CHARACTER);
}

/**
 * Checks message attributes (at most ten; names of `[A-Za-z0-9_.-]`, not `AWS.`/`Amazon.`, no
 * leading, trailing or doubled `.`; a `String`/`Number`/`Binary` data type, optionally
 * `.label`-suffixed; a non-empty value of that type) and returns the bytes they add to the
 * message size (name, data type and value). Fails with `InvalidParameterValue`.
 */
export function checkMessageAttributes(attributes: Readonly<Record<string, MessageAttributeValue>>): number {
  const names = Object.keys(attributes);
  if (names.length > MAX_MESSAGE_ATTRIBUTES) {
    throw invalid(
      `Number of message attributes [${names.length}] exceeds the allowed maximum [${MAX_MESSAGE_ATTRIBUTES}].`,
    );
  }
  let size = 0;
  for (const name of names) {
    checkAttributeName(name);
    size += Buffer.byteLength(name) + checkAttributeValue("Message (user)", name, attributes[name]!);
  }
  return size;
}

/** Checks message system attributes: only `AWSTraceHeader`, of type `String`, with a value. */
export function checkMessageSystemAttributes(
  attributes: Readonly<Record<string, MessageSystemAttributeValue>>,
): void {
  for (const name of Object.keys(attributes)) {
    if (name !== "AWSTraceHeader") throw invalid(`Message system attribute name '${name}' is invalid.`);
    const value = attributes[name]!;
    if (value.DataType !== "String") {
      throw invalid(`Message system attribute '${name}' must be of type 'String'.`);
    }
    checkAttributeValue("Message system", name, value);
  }
}

function checkAttributeName(name: string): void {
  if (
    !ATTRIBUTE_NAME.test(name) ||
    RESERVED_ATTRIBUTE_PREFIX.test(name) ||
    name.startsWith(".") ||
    name.endsWith(".") ||
    name.includes("..")
  ) {
    throw invalid(
      `Message (user) attribute name '${name}' is invalid: use up to 256 characters from A-Z, a-z, 0-9, '_', '-' and '.', not starting with 'AWS.' or 'Amazon.', and no leading, trailing or repeated '.'.`,
    );
  }
}

/** Checks one value against its data type; returns the bytes of its data type and value. */
function checkAttributeValue(kind: string, name: string, value: MessageSystemAttributeValue): number {
  const type = DATA_TYPE.exec(value.DataType)?.[1];
  if (type === undefined || value.DataType.length > 256) {
    throw invalid(`${kind} attribute '${name}' has an invalid data type '${value.DataType}'.`);
  }
  const typeBytes = Buffer.byteLength(value.DataType);
  if (type === "Binary") {
    if (value.BinaryValue === undefined || value.BinaryValue.byteLength === 0)
      throw emptyValue(kind, name, type);
    return typeBytes + value.BinaryValue.byteLength;
  }
  const text = value.StringValue;
  if (text === undefined || text === "") throw emptyValue(kind, name, type);
  if (type === "Number" && !NUMBER.test(text)) {
    throw invalid(`Can't cast the value of ${kind.toLowerCase()} attribute '${name}' to a number.`);
  }
  if (findInvalidCharacter(text) !== -1) {
    throw invalid(`${kind} attribute '${name}' contains characters outside the allowed set.`);
  }
  return typeBytes + Buffer.byteLength(text);
}

function emptyValue(kind: string, name: string, type: string): AwsError {
  return invalid(`${kind} attribute '${name}' must contain a non-empty value of type '${type}'.`);
}

function invalid(message: string): AwsError {
  return sqsError("InvalidParameterValue", message);
}
