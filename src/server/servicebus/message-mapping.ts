import rhea from "rhea";
import { QueueError } from "../../core/errors.js";
import type { EngineMessage } from "../../engine/delivery.js";
import type { FieldEdit, MessageRecord } from "../../engine/records.js";
import { DEAD_LETTER_ATTRIBUTES, DEAD_LETTER_REASONS } from "../../rules/dead-letters.js";
import {
  type AmqpMessage,
  attributeText,
  dataBytes,
  dataSection,
  decodeApplicationProperties,
  decodeBody,
  encodeApplicationProperties,
  encodeBody,
} from "./amqp-message.js";

/** Keys of what the endpoint keeps in a message's properties beside what the engine reads. */
const KEY = {
  applicationProperties: "servicebus.applicationProperties",
  amqpBody: "servicebus.amqpBody",
  subject: "servicebus.subject",
  to: "servicebus.to",
  replyTo: "servicebus.replyTo",
  replyToSessionId: "servicebus.replyToSessionId",
  partitionKey: "servicebus.partitionKey",
  scheduledEnqueueTime: "servicebus.scheduledEnqueueTime",
} as const;

/** Where a message stands, as `x-opt-message-state` tells a peek. */
export const MESSAGE_STATE = { active: 0, deferred: 1, scheduled: 2 } as const;

/** Service Bus's own names for the reasons the engine dead-letters with. */
const SERVICE_BUS_REASONS: Readonly<Record<string, string>> = {
  [DEAD_LETTER_REASONS.expired]: "TTLExpiredException",
};

/**
 * A message a client sent, as the engine keeps it. Application properties are kept exactly (their
 * AMQP types included) and also as text attributes, which clients of the same queue over SQS read.
 */
export function toEngineMessage(message: AmqpMessage, now: number, deduplicate: boolean): EngineMessage {
  const data = dataBytes(message.body);
  const applicationProperties = message.application_properties ?? {};
  const attributes: Record<string, string> = {};
  for (const [key, value] of Object.entries(applicationProperties)) attributes[key] = attributeText(value);
  const annotations = message.message_annotations ?? {};
  const scheduled = annotations["x-opt-scheduled-enqueue-time"];
  const scheduledAt =
    scheduled instanceof Date ? scheduled.getTime() : typeof scheduled === "number" ? scheduled : undefined;
  const partitionKey = annotations["x-opt-partition-key"];
  const properties: Record<string, string> = {};
  const keep = (key: string, value: unknown) => {
    if (value !== undefined && value !== null) properties[key] = attributeText(value);
  };
  if (Object.keys(applicationProperties).length > 0)
    properties[KEY.applicationProperties] = encodeApplicationProperties(applicationProperties);
  if (data === undefined) properties[KEY.amqpBody] = "1";
  keep(KEY.subject, message.subject);
  keep(KEY.to, message.to);
  keep(KEY.replyTo, message.reply_to);
  keep(KEY.replyToSessionId, message.reply_to_group_id);
  keep(KEY.partitionKey, partitionKey);
  if (scheduledAt !== undefined) properties[KEY.scheduledEnqueueTime] = String(scheduledAt);
  const messageId =
    message.message_id === undefined || message.message_id === null ? undefined : idText(message.message_id);
  const delayMs = scheduledAt !== undefined && scheduledAt > now ? scheduledAt - now : undefined;
  return {
    body: data ?? encodeBody(message.body),
    attributes: Object.keys(attributes).length > 0 ? attributes : undefined,
    sessionId:
      typeof message.group_id === "string" && message.group_id.length > 0 ? message.group_id : undefined,
    correlationId:
      message.correlation_id === undefined || message.correlation_id === null
        ? undefined
        : idText(message.correlation_id),
    messageId,
    deduplicationId: deduplicate ? messageId : undefined,
    contentType: message.content_type,
    // Read by subscription filters (`sys.label`, a correlation filter's `To`); stored in `properties`.
    subject: textOrUndefined(message.subject),
    to: textOrUndefined(message.to),
    replyTo: textOrUndefined(message.reply_to),
    // Service Bus counts a scheduled message's time to live from when it is enqueued, its scheduled time.
    timeToLiveMs:
      typeof message.ttl === "number" && message.ttl > 0 ? message.ttl + (delayMs ?? 0) : undefined,
    delayMs,
    properties,
  };
}

/**
 * The edit that merges a disposition's properties to modify (AMQP-typed values, as a sender's
 * application properties are) over a stored message's application properties, kept as
 * {@link toEngineMessage} keeps them: exactly, and as text attributes. `undefined` when there
 * are none; a value that is not a map is the client's error.
 */
export function propertiesToModify(changes: unknown): FieldEdit | undefined {
  if (changes === undefined || changes === null) return undefined;
  if (
    typeof changes !== "object" ||
    Array.isArray(changes) ||
    Buffer.isBuffer(changes) ||
    changes instanceof Date
  )
    throw new QueueError("Validation", "properties to modify must be a map");
  const entries = Object.entries(changes);
  if (entries.length === 0) return undefined;
  return (stored) => {
    const attributes: Record<string, string> = { ...stored.attributes };
    for (const [key, value] of entries) attributes[key] = attributeText(value);
    const properties: Record<string, string> = { ...stored.properties };
    const exact = properties[KEY.applicationProperties];
    properties[KEY.applicationProperties] = encodeApplicationProperties({
      ...(exact === undefined ? {} : decodeApplicationProperties(exact)),
      ...changes,
    });
    return { attributes, properties };
  };
}

/** How a message is shown: handed to a receiver (with its lock's end), or peeked (with its state). */
export interface MessageView {
  readonly lockedUntil?: number;
  readonly state?: (typeof MESSAGE_STATE)[keyof typeof MESSAGE_STATE];
  /** For a peek: the deliveries so far. Handed over, the count is of deliveries before this one, as Service Bus sends it. */
  readonly peeked?: boolean;
}

/** A stored message as Service Bus delivers it. */
export function toAmqpMessage(record: MessageRecord, view: MessageView = {}): AmqpMessage {
  const properties = record.properties ?? {};
  const exact = properties[KEY.applicationProperties];
  const applicationProperties: Record<string, unknown> =
    exact === undefined ? {} : decodeApplicationProperties(exact);
  const attributes = record.attributes ?? {};
  // Attributes the engine added since (a dead letter's reason) or another protocol set are shown as text.
  for (const [key, value] of Object.entries(attributes))
    if (!(key in applicationProperties) || attributeText(applicationProperties[key]) !== value)
      applicationProperties[key] = value;
  const deadLetterSource = attributes[DEAD_LETTER_ATTRIBUTES.sourceQueue];
  delete applicationProperties[DEAD_LETTER_ATTRIBUTES.sourceQueue];
  const reason = applicationProperties[DEAD_LETTER_ATTRIBUTES.reason];
  if (typeof reason === "string" && SERVICE_BUS_REASONS[reason] !== undefined)
    applicationProperties[DEAD_LETTER_ATTRIBUTES.reason] = SERVICE_BUS_REASONS[reason];
  const enqueuedAt = enqueuedTime(record);
  const annotations: Record<string, unknown> = {
    "x-opt-sequence-number": rhea.types.wrap_long(record.seq),
    "x-opt-enqueued-time": new Date(enqueuedAt),
  };
  if (view.lockedUntil !== undefined) annotations["x-opt-locked-until"] = new Date(view.lockedUntil);
  if (view.state !== undefined) annotations["x-opt-message-state"] = rhea.types.wrap_int(view.state);
  const scheduled = properties[KEY.scheduledEnqueueTime];
  if (scheduled !== undefined) annotations["x-opt-scheduled-enqueue-time"] = new Date(Number(scheduled));
  if (properties[KEY.partitionKey] !== undefined)
    annotations["x-opt-partition-key"] = properties[KEY.partitionKey];
  if (deadLetterSource !== undefined) annotations["x-opt-deadletter-source"] = deadLetterSource;
  const message: AmqpMessage = {
    body: properties[KEY.amqpBody] === undefined ? dataSection(record.body) : decodeBody(record.body),
    durable: true,
    delivery_count: view.peeked ? record.deliveryCount : Math.max(0, record.deliveryCount - 1),
    message_annotations: annotations,
  };
  if (Object.keys(applicationProperties).length > 0) message.application_properties = applicationProperties;
  if (record.expiresAt !== null) message.ttl = Math.max(1, record.expiresAt - enqueuedAt);
  message.message_id = record.messageId;
  if (record.correlationId !== undefined) message.correlation_id = record.correlationId;
  if (record.contentType !== undefined) message.content_type = record.contentType;
  if (record.sessionId !== undefined) message.group_id = record.sessionId;
  if (properties[KEY.subject] !== undefined) message.subject = properties[KEY.subject];
  if (properties[KEY.to] !== undefined) message.to = properties[KEY.to];
  if (properties[KEY.replyTo] !== undefined) message.reply_to = properties[KEY.replyTo];
  if (properties[KEY.replyToSessionId] !== undefined)
    message.reply_to_group_id = properties[KEY.replyToSessionId];
  return message;
}

/**
 * When Service Bus says a message was enqueued: when it became available, which for a message
 * scheduled ahead is its scheduled time, not the time of the call that scheduled it.
 */
function enqueuedTime(record: MessageRecord): number {
  const scheduled = record.properties?.[KEY.scheduledEnqueueTime];
  const scheduledAt = Number(scheduled);
  return Number.isFinite(scheduledAt) ? Math.max(record.enqueuedAt, scheduledAt) : record.enqueuedAt;
}

/** The encoded form of a stored message, as peek and receive-by-sequence-number answer it. */
export function encodeMessage(message: AmqpMessage): Buffer {
  return rhea.message.encode(message);
}

function idText(id: unknown): string {
  if (Buffer.isBuffer(id) && id.length === 16) return id.toString("hex");
  return attributeText(id);
}

/** A text property as the filters read it, or `undefined` where it is absent. */
function textOrUndefined(value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : attributeText(value);
}
