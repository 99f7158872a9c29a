import { createHash } from "node:crypto";
import {
  checkMessageAttributes,
  checkMessageSystemAttributes,
  findInvalidCharacter,
  MESSAGE_SYSTEM_ATTRIBUTE_NAMES,
  type Message,
  type MessageAttributeValue,
  md5OfMessageAttributes,
  md5OfMessageBody,
  md5OfMessageSystemAttributes,
  type SendMessageBatchRequestEntry,
  sqsError,
} from "../../aws/index.js";
import type { EngineMessage } from "../../engine/delivery.js";
import type { MessageRecord } from "../../engine/records.js";
import { DEAD_LETTER_ATTRIBUTES } from "../../rules/dead-letters.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import { maximumMessageSize } from "./queue-attributes.js";
import type { QueueAddresses } from "./queue-urls.js";

/** Keys of the fields the server keeps in a message's properties. */
const KEY = {
  attributes: "sqs.attributes",
  attributesMd5: "sqs.attributesMd5",
  bodyMd5: "sqs.bodyMd5",
  trace: "sqs.trace",
  sender: "sqs.sender",
  deduplicationId: "sqs.deduplicationId",
} as const;

// Alphanumerics and ASCII punctuation, 1 to 128: MessageGroupId, MessageDeduplicationId, ReceiveRequestAttemptId.
const TOKEN = /^[\x21-\x7e]{1,128}$/;

/** What a send keeps and what it answers. */
export interface PreparedSend {
  readonly message: EngineMessage;
  readonly md5OfBody: string;
  readonly md5OfAttributes: string | undefined;
  readonly md5OfSystemAttributes: string | undefined;
}

type SendEntry = Omit<SendMessageBatchRequestEntry, "Id">;

function invalid(message: string): Error {
  return sqsError("InvalidParameterValue", message);
}

/** Checks a token parameter (group, deduplication or attempt id). */
export function checkToken(parameter: string, value: string): void {
  if (!TOKEN.test(value))
    throw invalid(
      `Value ${value.slice(0, 128)} for parameter ${parameter} is invalid. Reason: ${parameter} can only include alphanumeric and punctuation characters. 1 to 128 in length.`,
    );
}

function missing(parameter: string, inBatch: boolean): Error {
  const text = `The request must contain the parameter ${parameter}.`;
  return inBatch ? invalid(text) : sqsError("MissingParameter", text);
}

/** Checks one message to send to `queue` and turns it into the engine's form, with its digests. */
export function prepareSend(
  entry: SendEntry,
  queue: QueueRecord,
  senderId: string,
  inBatch: boolean,
): PreparedSend {
  const body = entry.MessageBody;
  if (body.length === 0) throw missing("MessageBody", inBatch);
  const bad = findInvalidCharacter(body);
  if (bad >= 0)
    throw sqsError(
      "InvalidMessageContents",
      `Invalid binary character '#x${body.codePointAt(bad)!.toString(16)}' was found in the message body.`,
    );
  const attributes = entry.MessageAttributes ?? {};
  const size = Buffer.byteLength(body) + checkMessageAttributes(attributes);
  const limit = maximumMessageSize(queue);
  if (size > limit)
    throw invalid(`One or more parameters are invalid. Reason: Message must be shorter than ${limit} bytes.`);
  if (entry.MessageSystemAttributes !== undefined)
    checkMessageSystemAttributes(entry.MessageSystemAttributes);
  const properties: Record<string, string> = {
    [KEY.sender]: senderId,
    [KEY.bodyMd5]: md5OfMessageBody(body),
  };
  const md5OfAttributes = md5OfMessageAttributes(attributes);
  if (md5OfAttributes !== undefined) {
    properties[KEY.attributes] = JSON.stringify(
      Object.fromEntries(
        Object.entries(attributes).map(([name, { DataType, StringValue, BinaryValue }]) => [
          name,
          BinaryValue === undefined
            ? { DataType, StringValue }
            : { DataType, BinaryValue: Buffer.from(BinaryValue).toString("base64") },
        ]),
      ),
    );
    properties[KEY.attributesMd5] = md5OfAttributes;
  }
  const trace = entry.MessageSystemAttributes?.AWSTraceHeader?.StringValue;
  if (trace !== undefined) properties[KEY.trace] = trace;

  let delayMs: number | undefined;
  if (entry.DelaySeconds !== undefined) {
    if (!Number.isInteger(entry.DelaySeconds) || entry.DelaySeconds < 0 || entry.DelaySeconds > 900)
      throw invalid(
        `Value ${entry.DelaySeconds} for parameter DelaySeconds is invalid. Reason: Must be >= 0 and <= 900.`,
      );
    if (queue.fifo && entry.DelaySeconds > 0)
      throw invalid(
        `Value ${entry.DelaySeconds} for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type.`,
      );
    delayMs = entry.DelaySeconds * 1000;
  }
  const group = entry.MessageGroupId;
  if (group !== undefined) checkToken("MessageGroupId", group);
  let deduplicationId: string | undefined;
  if (queue.fifo) {
    if (group === undefined) throw missing("MessageGroupId", inBatch);
    let id = entry.MessageDeduplicationId;
    if (id !== undefined) checkToken("MessageDeduplicationId", id);
    else if (queue.properties.ContentBasedDeduplication === "true")
      id = createHash("sha256").update(body, "utf8").digest("hex");
    else
      throw invalid(
        "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly",
      );
    properties[KEY.deduplicationId] = id;
    deduplicationId = queue.properties.DeduplicationScope === "messageGroup" ? `${group}\n${id}` : id;
  } else if (entry.MessageDeduplicationId !== undefined) {
    throw invalid(
      "Value for parameter MessageDeduplicationId is invalid. Reason: The request include parameter that is not valid for this queue type.",
    );
  }
  return {
    message: {
      body: Buffer.from(body, "utf8"),
      attributes: plainAttributes(attributes),
      sessionId: group,
      correlationId: undefined,
      messageId: undefined,
      deduplicationId,
      contentType: undefined,
      timeToLiveMs: undefined,
      delayMs,
      properties,
    },
    md5OfBody: properties[KEY.bodyMd5]!,
    md5OfAttributes,
    md5OfSystemAttributes:
      entry.MessageSystemAttributes === undefined
        ? undefined
        : md5OfMessageSystemAttributes(entry.MessageSystemAttributes),
  };
}

// String and Number attributes as the engine's plain map, so the engine's own clients see them too.
function plainAttributes(
  attributes: Readonly<Record<string, MessageAttributeValue>>,
): Record<string, string> | undefined {
  const plain: Record<string, string> = {};
  let any = false;
  for (const [name, value] of Object.entries(attributes))
    if (value.StringValue !== undefined) {
      plain[name] = value.StringValue;
      any = true;
    }
  return any ? plain : undefined;
}

/**
 * A message's attributes with their data types: those sent through SQS as sent, and the engine's
 * plain ones (sent by its other clients, or added since: a dead letter's reason) as `String`.
 * `asSent` says whether they are exactly what was sent, so the MD5 computed then still holds.
 */
function typedAttributes(record: MessageRecord): {
  typed: Record<string, MessageAttributeValue>;
  asSent: boolean;
} {
  const stored = record.properties?.[KEY.attributes];
  const parsed =
    stored === undefined
      ? {}
      : (JSON.parse(stored) as Record<
          string,
          { DataType: string; StringValue?: string; BinaryValue?: string }
        >);
  // `for...in`, not `Object.entries`: no array of pairs per message.
  const typed: Record<string, MessageAttributeValue> = {};
  for (const name in parsed) {
    const { DataType, StringValue, BinaryValue } = parsed[name]!;
    typed[name] =
      BinaryValue === undefined
        ? { DataType, StringValue }
        : { DataType, BinaryValue: Buffer.from(BinaryValue, "base64") };
  }
  let asSent = stored !== undefined;
  const plain = record.attributes ?? {};
  for (const name in plain) {
    const value = plain[name]!;
    if (value !== "" && typed[name] === undefined) {
      typed[name] = { DataType: "String", StringValue: value };
      asSent = false;
    }
  }
  return { typed, asSent };
}

/** Which attributes a receive asked for. */
export interface ReceiveSelection {
  /** System attribute names (`All` for every one). */
  readonly systemAttributes: readonly string[];
  /** Message attribute names (`All`, `.*`, `prefix.*` or exact names). */
  readonly messageAttributes: readonly string[];
}

function selectAttributes(
  attributes: Record<string, MessageAttributeValue>,
  names: readonly string[],
): Record<string, MessageAttributeValue> {
  if (names.some((name) => name === "All" || name === ".*" || name === "*")) return attributes;
  const prefixes = names.filter((name) => name.endsWith(".*")).map((name) => name.slice(0, -2));
  return Object.fromEntries(
    Object.entries(attributes).filter(
      ([name]) => names.includes(name) || prefixes.some((prefix) => name.startsWith(prefix)),
    ),
  );
}

/** The 20-digit sequence number SQS shows for a FIFO message. */
export function sequenceNumberOf(seq: number): string {
  return String(seq).padStart(20, "0");
}

/** A received message as ReceiveMessage answers it. */
export function toSqsMessage(
  record: MessageRecord,
  queue: QueueRecord,
  receiptHandle: string,
  selection: ReceiveSelection,
  addresses: QueueAddresses,
): Message {
  const body = Buffer.from(record.body.buffer, record.body.byteOffset, record.body.byteLength).toString(
    "utf8",
  );
  const message: Message = {
    MessageId: record.messageId,
    ReceiptHandle: receiptHandle,
    MD5OfBody: record.properties?.[KEY.bodyMd5] ?? md5OfMessageBody(body),
    Body: body,
  };
  if (selection.systemAttributes.length > 0)
    message.Attributes = systemAttributes(record, queue, selection, addresses);
  if (selection.messageAttributes.length > 0) {
    const { typed, asSent } = typedAttributes(record);
    const chosen = selectAttributes(typed, selection.messageAttributes);
    const count = Object.keys(chosen).length;
    if (count > 0) {
      message.MessageAttributes = chosen;
      const stored = record.properties?.[KEY.attributesMd5];
      message.MD5OfMessageAttributes =
        stored !== undefined && asSent && count === Object.keys(typed).length
          ? stored
          : md5OfMessageAttributes(chosen);
    }
  }
  return message;
}

/** What `All` asks for: every system attribute a message can show. */
const ALL_SYSTEM_ATTRIBUTES = MESSAGE_SYSTEM_ATTRIBUTE_NAMES.filter((name) => name !== "All");

// One attribute by name: only those asked for are made, into an object built in the order asked.
function systemAttribute(
  name: string,
  record: MessageRecord,
  queue: QueueRecord,
  addresses: QueueAddresses,
): string | undefined {
  switch (name) {
    case "SenderId":
      return record.properties?.[KEY.sender] ?? addresses.accountId;
    case "SentTimestamp":
      return String(record.enqueuedAt);
    case "ApproximateReceiveCount":
      return String(record.deliveryCount);
    case "ApproximateFirstReceiveTimestamp":
      return String(record.firstDeliveredAt ?? record.enqueuedAt);
    case "MessageGroupId":
      return record.sessionId;
    case "AWSTraceHeader":
      return record.properties?.[KEY.trace];
    case "SequenceNumber":
      return queue.fifo ? sequenceNumberOf(record.seq) : undefined;
    case "MessageDeduplicationId":
      return queue.fifo ? record.properties?.[KEY.deduplicationId] : undefined;
    case "DeadLetterQueueSourceArn": {
      const source = record.attributes?.[DEAD_LETTER_ATTRIBUTES.sourceQueue];
      return source === undefined ? undefined : addresses.arn(source);
    }
    default:
      return undefined;
  }
}

function systemAttributes(
  record: MessageRecord,
  queue: QueueRecord,
  selection: ReceiveSelection,
  addresses: QueueAddresses,
): Record<string, string> {
  const wanted = selection.systemAttributes.includes("All")
    ? ALL_SYSTEM_ATTRIBUTES
    : selection.systemAttributes;
  const chosen: Record<string, string> = {};
  for (const name of wanted) {
    const value = systemAttribute(name, record, queue, addresses);
    if (value !== undefined) chosen[name] = value;
  }
  return chosen;
}
