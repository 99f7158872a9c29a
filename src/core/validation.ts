import type { Capabilities, ProviderType } from "./capabilities.js";
import { QueueError } from "./errors.js";
import { bodyBytes, type MessageInput, toMessage } from "./message.js";
import type { OutgoingMessage } from "./provider.js";
import { ReceiptHandle } from "./receipt-handle.js";

/** Longest queue name any provider accepts (Service Bus's limit; SQS providers check their own 80). */
export const MAX_QUEUE_NAME_LENGTH = 260;
/** The longest receive wait the client accepts (one hour). */
export const MAX_WAIT_MS = 3_600_000;
/** The most messages one `receiveMessages` call may ask for. */
export const MAX_RECEIVE_COUNT = 1_000;
/** Longest session id (Service Bus and SQS message groups agree). */
export const MAX_SESSION_ID_LENGTH = 128;

// Letters, digits and the separators the supported services allow: `.fifo`, `-dlq`, `a/b`, `$deadletterqueue`.
const QUEUE_NAME = /^[A-Za-z0-9_$][A-Za-z0-9._\-/$]*$/;
// Printable ASCII without space: what an SQS MessageGroupId and a Service Bus SessionId both accept.
const SESSION_ID = /^[\x21-\x7e]+$/;

const validQueueNames = new Set<string>();

/** Throws `Validation` unless `name` is a queue name every provider could accept. */
export function validateQueueName(name: unknown): asserts name is string {
  if (typeof name === "string" && validQueueNames.has(name)) return;
  if (typeof name !== "string" || name.length === 0)
    throw new QueueError("Validation", "a queue name must be a non-empty string");
  if (name.length > MAX_QUEUE_NAME_LENGTH)
    throw new QueueError(
      "Validation",
      `queue name is ${name.length} characters long; the limit is ${MAX_QUEUE_NAME_LENGTH}`,
    );
  if (!QUEUE_NAME.test(name) || name.endsWith("/") || name.includes("//"))
    throw new QueueError(
      "Validation",
      `queue name ${JSON.stringify(name)} may hold only letters, digits, '.', '_', '-', '/' and '$'`,
    );
  if (validQueueNames.size < 10_000) validQueueNames.add(name);
}

/** Throws `Validation` unless `id` is a session id every provider could accept. */
export function validateSessionId(id: unknown): asserts id is string {
  if (typeof id !== "string" || id.length === 0)
    throw new QueueError("Validation", "a session id must be a non-empty string");
  if (id.length > MAX_SESSION_ID_LENGTH)
    throw new QueueError(
      "Validation",
      `session id is ${id.length} characters long; the limit is ${MAX_SESSION_ID_LENGTH}`,
    );
  if (!SESSION_ID.test(id))
    throw new QueueError(
      "Validation",
      "a session id may hold only printable ASCII characters without spaces",
    );
}

/** Throws `Validation` unless `value` is a whole number of milliseconds in `[min, max]`. */
export function validateDuration(what: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isFinite(value) || !Number.isInteger(value))
    throw new QueueError("Validation", `${what} must be a whole number of milliseconds`);
  if (value < min || value > max)
    throw new QueueError("Validation", `${what} is ${value} ms; it must be between ${min} and ${max} ms`);
  return value;
}

/** Throws `Validation` unless `value` is a whole number in `[min, max]`. */
export function validateCount(what: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max)
    throw new QueueError("Validation", `${what} must be a whole number between ${min} and ${max}`);
  return value;
}

/** How errors name a message: by its index in a batch, or as the one message of a call. */
function messageLabel(index: number | undefined): string {
  return index === undefined ? "message" : `message ${index}`;
}

// Names the message only when it fails: labels built for every message that passes cost a string each.
function optionalString(
  index: number | undefined,
  field: string,
  value: unknown,
  maxLength: number,
): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string")
    throw new QueueError("Validation", `${messageLabel(index)} ${field} must be a string`);
  if (value.length === 0 || value.length > maxLength)
    throw new QueueError(
      "Validation",
      `${messageLabel(index)} ${field} must be 1 to ${maxLength} characters long`,
    );
  return value;
}

function validateAttributes(value: unknown): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "object" || Array.isArray(value))
    throw new QueueError("Validation", "message attributes must be an object of strings");
  const attributes = value as Record<string, unknown>;
  for (const key in attributes) {
    if (key.length === 0 || key.length > 256)
      throw new QueueError("Validation", "an attribute name must be 1 to 256 characters long");
    if (typeof attributes[key] !== "string")
      throw new QueueError("Validation", `attribute ${JSON.stringify(key)} must have a string value`);
  }
  return { ...(attributes as Record<string, string>) };
}

const utf8Length = (text: string): number => Buffer.byteLength(text, "utf8");

/** The size a message counts against `maxMessageBytes`: its body and its attributes' names and values. */
export function messageSize(
  body: Uint8Array,
  attributes: Readonly<Record<string, string>> | undefined,
): number {
  let size = body.byteLength;
  if (attributes !== undefined)
    for (const key in attributes) size += utf8Length(key) + utf8Length(attributes[key]!);
  return size;
}

/** Checks one message against the provider's capabilities and returns it ready to send. */
export function prepareMessage(
  input: MessageInput,
  capabilities: Capabilities,
  index?: number,
): OutgoingMessage {
  if (input === null || input === undefined || (typeof input !== "object" && typeof input !== "string"))
    throw new QueueError("Validation", `${messageLabel(index)} must be a string, bytes or a message object`);
  const message = toMessage(input);
  if (typeof message.body !== "string" && !(message.body instanceof Uint8Array))
    throw new QueueError("Validation", `${messageLabel(index)} has no body: give a string or a Uint8Array`);
  const body = bodyBytes(message.body);
  const attributes = validateAttributes(message.attributes);
  const size = messageSize(body, attributes);
  if (size > capabilities.maxMessageBytes)
    throw new QueueError(
      "MessageTooLarge",
      `${messageLabel(index)} is ${size} bytes; the limit of this provider is ${capabilities.maxMessageBytes} bytes`,
    );
  if (message.sessionId !== undefined && message.sessionId !== null) validateSessionId(message.sessionId);
  let delayMs: number | undefined;
  if (message.delayMs !== undefined && message.delayMs !== null) {
    if (!capabilities.delayedDelivery && message.delayMs > 0)
      throw new QueueError("Unsupported", "this provider cannot delay messages");
    delayMs = validateDuration(`${messageLabel(index)} delayMs`, message.delayMs, 0, capabilities.maxDelayMs);
  }
  let timeToLiveMs: number | undefined;
  if (message.timeToLiveMs !== undefined && message.timeToLiveMs !== null)
    timeToLiveMs = validateDuration(
      `${messageLabel(index)} timeToLiveMs`,
      message.timeToLiveMs,
      1,
      Number.MAX_SAFE_INTEGER,
    );
  return {
    body,
    attributes,
    sessionId: message.sessionId ?? undefined,
    correlationId: optionalString(index, "correlationId", message.correlationId, 128),
    messageId: optionalString(index, "messageId", message.messageId, 128),
    deduplicationId: optionalString(index, "deduplicationId", message.deduplicationId, 128),
    contentType: optionalString(index, "contentType", message.contentType, 256),
    timeToLiveMs,
    delayMs,
  };
}

/** A receipt handle from either form, refused with `InvalidReceipt` when another provider issued it. */
export function checkReceipt(receipt: ReceiptHandle | string, providerType: ProviderType): ReceiptHandle {
  const handle = ReceiptHandle.from(receipt);
  if (handle.providerType !== providerType)
    throw new QueueError(
      "InvalidReceipt",
      `this receipt was issued by the ${handle.providerType} provider, not ${providerType}`,
    );
  return handle;
}

/** Checks a dead-letter reason and description. */
export function checkReason(reason: unknown, description: unknown): void {
  if (typeof reason !== "string" || reason.length === 0 || reason.length > 4096)
    throw new QueueError("Validation", "a dead-letter reason must be a string of 1 to 4096 characters");
  if (description !== undefined && (typeof description !== "string" || description.length > 4096))
    throw new QueueError(
      "Validation",
      "a dead-letter description must be a string of at most 4096 characters",
    );
}
