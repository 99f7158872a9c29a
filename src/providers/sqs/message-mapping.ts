import { randomUUID } from "node:crypto";
import type { MessageAttributeValue, Message as SqsMessage } from "../../aws/json-protocol/sqs-types.js";
import { findInvalidCharacter, MAX_MESSAGE_ATTRIBUTES } from "../../aws/json-protocol/sqs-validation.js";
import { QueueError } from "../../core/errors.js";
import { Delivery } from "../../core/message.js";
import type { OutgoingMessage } from "../../core/provider.js";
import { ReceiptHandle } from "../../core/receipt-handle.js";
import type { SqsQueue } from "./queue-urls.js";
import { receiptToken } from "./receipts.js";

/** The prefix of the message attributes queue-runtime keeps its own fields in; they are hidden on receive. */
export const RESERVED_PREFIX = "qr.";

/** The message attributes queue-runtime reserves. */
export const RESERVED_ATTRIBUTES = {
  /** The id given by the sender, or kept by a dead-letter copy (SQS assigns ids of its own). */
  messageId: "qr.messageId",
  correlationId: "qr.correlationId",
  contentType: "qr.contentType",
  /** The session id on a standard queue; a FIFO queue carries it as `MessageGroupId`. */
  sessionId: "qr.sessionId",
  /** How the body is encoded when it is not sent as text: `base64` or `empty`. */
  encoding: "qr.encoding",
  /** Attributes SQS cannot carry as they are, as UTF-8 JSON in one Binary attribute. */
  attributes: "qr.attributes",
} as const;

/** How a body that is not valid SQS text travels. */
export const BODY_ENCODINGS = ["base64", "empty"] as const;

/** A body encoding. */
export type BodyEncoding = (typeof BODY_ENCODINGS)[number];

/** The largest message SQS accepts: body and attributes (names, data types and values). */
export const SQS_MAX_MESSAGE_BYTES = 1_048_576;
/** The longest delay SQS allows a message, in seconds. */
export const SQS_MAX_DELAY_SECONDS = 900;

/** The system attributes a receive asks for. */
export const RECEIVED_SYSTEM_ATTRIBUTES = [
  "ApproximateReceiveCount",
  "ApproximateFirstReceiveTimestamp",
  "SentTimestamp",
  "MessageGroupId",
  "SequenceNumber",
  "DeadLetterQueueSourceArn",
  // The X-Ray trace header the AWS SDK sends: shown as an attribute, so that telemetry reads the trace from it.
  "AWSTraceHeader",
];

/** A message as it goes on the wire, with its size as SQS counts it. */
export interface EncodedMessage {
  readonly body: string;
  readonly attributes: Record<string, MessageAttributeValue> | undefined;
  readonly bytes: number;
}

const STRING = "String";
const BINARY = "Binary";
const TYPE_BYTES = 6;
const SQS_ATTRIBUTE_NAME = /^[A-Za-z0-9_-](?:[A-Za-z0-9_.-]{0,254}[A-Za-z0-9_-])?$/;
const AWS_PREFIX = /^(?:aws\.|amazon\.)/i;
const utf8Strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });
const NONE: Readonly<Record<string, string>> = Object.freeze({});

/**
 * A body as SQS text: valid UTF-8 of characters SQS allows goes as it is; anything else (other
 * bytes, refused characters, the empty body) goes base64-encoded and says so.
 */
export function encodeBody(body: Uint8Array): { text: string; encoding: BodyEncoding | undefined } {
  if (body.byteLength === 0) return { text: "-", encoding: "empty" };
  let text: string | undefined;
  try {
    text = utf8Strict.decode(body);
  } catch {
    text = undefined;
  }
  if (text !== undefined && findInvalidCharacter(text) === -1) return { text, encoding: undefined };
  return {
    text: Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString("base64"),
    encoding: "base64",
  };
}

/** The bytes of a received body, undoing {@link encodeBody}. */
export function decodeBody(text: string, encoding: string | undefined): Uint8Array {
  if (encoding === "empty") return new Uint8Array(0);
  if (encoding === "base64") return Buffer.from(text, "base64");
  return Buffer.from(text, "utf8");
}

/** Fails with `Validation` for an attribute name SQS messages of queue-runtime cannot carry. */
function checkAttributeName(name: string): void {
  if (name.startsWith(RESERVED_PREFIX))
    throw new QueueError(
      "Validation",
      `attribute names starting with ${RESERVED_PREFIX} are reserved by queue-runtime on SQS: ${JSON.stringify(name)}`,
    );
}

// A name and value SQS takes as a String attribute as they are.
function travelsAsIs(name: string, value: string): boolean {
  return (
    value !== "" &&
    SQS_ATTRIBUTE_NAME.test(name) &&
    !name.includes("..") &&
    !AWS_PREFIX.test(name) &&
    findInvalidCharacter(value) === -1
  );
}

/**
 * A message as SQS message attributes and body. Attributes SQS cannot carry as they are (empty
 * values, names or characters it refuses, more than ten in all) travel together in one Binary
 * attribute, so every attribute round-trips exactly.
 */
export function encodeMessage(message: OutgoingMessage, fifo: boolean, messageId?: string): EncodedMessage {
  const { text, encoding } = encodeBody(message.body);
  const fields: [string, string][] = [];
  const id = messageId ?? message.messageId;
  if (id !== undefined) fields.push([RESERVED_ATTRIBUTES.messageId, id]);
  if (message.correlationId !== undefined)
    fields.push([RESERVED_ATTRIBUTES.correlationId, message.correlationId]);
  if (message.contentType !== undefined) fields.push([RESERVED_ATTRIBUTES.contentType, message.contentType]);
  if (!fifo && message.sessionId !== undefined)
    fields.push([RESERVED_ATTRIBUTES.sessionId, message.sessionId]);
  const user = message.attributes;
  if (user !== undefined)
    for (const name in user) {
      checkAttributeName(name);
      fields.push([name, user[name]!]);
    }
  let bytes = Buffer.byteLength(text);
  if (fields.length === 0 && encoding === undefined) return { body: text, attributes: undefined, bytes };

  const attributes: Record<string, MessageAttributeValue> = {};
  if (encoding !== undefined) {
    attributes[RESERVED_ATTRIBUTES.encoding] = { DataType: STRING, StringValue: encoding };
    bytes += RESERVED_ATTRIBUTES.encoding.length + TYPE_BYTES + encoding.length;
  }
  const direct: [string, string][] = [];
  const packed: [string, string][] = [];
  for (const field of fields) (travelsAsIs(field[0], field[1]) ? direct : packed).push(field);
  const slots = MAX_MESSAGE_ATTRIBUTES - (encoding === undefined ? 0 : 1);
  // The last fields are the caller's own attributes: they move into the pack first.
  while (direct.length + (packed.length > 0 ? 1 : 0) > slots) packed.unshift(direct.pop()!);
  for (const [name, value] of direct) {
    attributes[name] = { DataType: STRING, StringValue: value };
    bytes += name.length + TYPE_BYTES + Buffer.byteLength(value);
  }
  if (packed.length > 0) {
    const json = Buffer.from(JSON.stringify(Object.fromEntries(packed)), "utf8");
    attributes[RESERVED_ATTRIBUTES.attributes] = { DataType: BINARY, BinaryValue: json };
    bytes += RESERVED_ATTRIBUTES.attributes.length + TYPE_BYTES + json.byteLength;
  }
  return { body: text, attributes, bytes };
}

/** The whole seconds of delay SQS is asked for: a delay is a "not before", so part of a second counts as one. */
export function delaySeconds(delayMs: number): number {
  return Math.min(SQS_MAX_DELAY_SECONDS, Math.ceil(delayMs / 1000));
}

const deduplicationIds = new WeakMap<OutgoingMessage, string>();

/**
 * The `MessageDeduplicationId` of a message on a FIFO queue: its `deduplicationId`, else its
 * `messageId`, else one generated once per message, so that a retried send is recognised as a
 * repeat within SQS's five-minute window.
 */
export function deduplicationIdOf(message: OutgoingMessage): string {
  const given = message.deduplicationId ?? message.messageId;
  if (given !== undefined) return given;
  let generated = deduplicationIds.get(message);
  if (generated === undefined) {
    generated = randomUUID();
    deduplicationIds.set(message, generated);
  }
  return generated;
}

/** A received SQS message as queue-runtime shows it, and what the provider keeps of it. */
export interface DecodedMessage {
  readonly delivery: Delivery;
  /** The id SQS gave the message (the delivery shows the sender's own id where it had one). */
  readonly sqsMessageId: string;
  /** The SQS receipt handle of this delivery. */
  readonly receiptHandle: string;
  /** The message group on a FIFO queue. */
  readonly groupId: string | undefined;
  /** The queue SQS moved the message from, for a message its redrive policy dead-lettered. */
  readonly sourceQueueArn: string | undefined;
}

function attributeText(value: MessageAttributeValue): string {
  if (value.StringValue !== undefined) return value.StringValue;
  const bytes = value.BinaryValue;
  return bytes === undefined
    ? ""
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
}

/**
 * A received message: queue-runtime's reserved attributes become its fields and are hidden from
 * `attributes`; other attributes are shown as text (Binary ones base64-encoded). `lockedUntilMs`
 * is when this delivery's visibility timeout ends.
 */
export function decodeMessage(
  message: SqsMessage,
  queue: SqsQueue,
  nowMs: number,
  lockedUntilMs: number,
): DecodedMessage {
  const system = message.Attributes ?? {};
  const sqsMessageId = message.MessageId ?? "";
  const receiptHandle = message.ReceiptHandle ?? "";
  const attributes: Record<string, string> = {};
  let reserved: Readonly<Record<string, string>> = NONE;
  const sent = message.MessageAttributes;
  if (sent !== undefined) {
    const own: Record<string, string> = {};
    reserved = own;
    for (const name in sent) {
      const value = sent[name]!;
      if (name === RESERVED_ATTRIBUTES.attributes && value.BinaryValue !== undefined) {
        const unpacked = JSON.parse(utf8.decode(value.BinaryValue)) as Record<string, string>;
        for (const key in unpacked) {
          if (key.startsWith(RESERVED_PREFIX)) own[key] = unpacked[key]!;
          else attributes[key] = unpacked[key]!;
        }
      } else if (name.startsWith(RESERVED_PREFIX)) own[name] = attributeText(value);
      else attributes[name] = attributeText(value);
    }
  }
  const traceHeader = system.AWSTraceHeader;
  if (traceHeader !== undefined && attributes.AWSTraceHeader === undefined)
    attributes.AWSTraceHeader = traceHeader;
  const groupId = system.MessageGroupId;
  const sentAt = Number(system.SentTimestamp) || nowMs;
  const delivery = new Delivery(
    {
      messageId: reserved[RESERVED_ATTRIBUTES.messageId] ?? sqsMessageId,
      body: decodeBody(message.Body ?? "", reserved[RESERVED_ATTRIBUTES.encoding]),
      attributes,
      sessionId: groupId ?? reserved[RESERVED_ATTRIBUTES.sessionId],
      correlationId: reserved[RESERVED_ATTRIBUTES.correlationId],
      contentType: reserved[RESERVED_ATTRIBUTES.contentType],
      deliveryCount: Number(system.ApproximateReceiveCount) || 1,
      enqueuedAtMs: sentAt,
      firstDeliveredAtMs: Number(system.ApproximateFirstReceiveTimestamp) || nowMs,
      deliveredAtMs: nowMs,
      sequenceNumber: system.SequenceNumber ?? sentAt,
    },
    lockedUntilMs,
    new ReceiptHandle("sqs", queue.name, receiptToken(queue.url, receiptHandle), lockedUntilMs),
  );
  return { delivery, sqsMessageId, receiptHandle, groupId, sourceQueueArn: system.DeadLetterQueueSourceArn };
}
