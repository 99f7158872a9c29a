import { randomUUID } from "node:crypto";
import type { ServiceBusMessage, ServiceBusReceivedMessage, ServiceBusReceiver } from "@azure/service-bus";
import type { PeekedMessage } from "../../core/admin.js";
import { QueueError } from "../../core/errors.js";
import { Delivery, type MessageFields } from "../../core/message.js";
import { peekedMessage } from "../../core/peeked-message.js";
import type { OutgoingMessage } from "../../core/provider.js";
import { ReceiptHandle } from "../../core/receipt-handle.js";
import { DEAD_LETTER_ATTRIBUTES, DEAD_LETTER_REASONS } from "../../rules/dead-letters.js";
import { receiptToken } from "./receipts.js";

/** Service Bus's reasons for its own dead letters, and queue-runtime's names for them. */
const SERVICE_REASONS: Readonly<Record<string, string>> = {
  TTLExpiredException: DEAD_LETTER_REASONS.expired,
  MaxDeliveryCountExceeded: DEAD_LETTER_REASONS.maxDeliveryCount,
};

/** What the SDK's `deadLetterMessage` takes. */
type DeadLetterOptions = NonNullable<Parameters<ServiceBusReceiver["deadLetterMessage"]>[1]>;

/** The suffix of a dead-letter sub-queue's path, as the SDK spells it. */
export const DEAD_LETTER_SUFFIX = "/$deadletterqueue";

/** The source queue of a dead-letter sub-queue path, or `undefined` for any other queue. */
export function deadLetterSource(queue: string): string | undefined {
  return queue.toLowerCase().endsWith(DEAD_LETTER_SUFFIX)
    ? queue.slice(0, -DEAD_LETTER_SUFFIX.length)
    : undefined;
}

/**
 * A message as the SDK sends it: the body as one data section of exactly its bytes, attributes as
 * application properties, a delay as the scheduled enqueue time. Service Bus detects duplicates
 * by message id alone, so a deduplication id becomes the message id, and one that differs from a
 * given message id is refused rather than silently ignored.
 */
export function toServiceBusMessage(message: OutgoingMessage, nowMs: number): ServiceBusMessage {
  const { deduplicationId } = message;
  if (
    deduplicationId !== undefined &&
    message.messageId !== undefined &&
    deduplicationId !== message.messageId
  )
    throw new QueueError(
      "Validation",
      "Service Bus detects duplicates by message id: give a deduplicationId equal to the messageId, or only one of them",
    );
  const outgoing: ServiceBusMessage = {
    body: Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength),
    messageId: message.messageId ?? deduplicationId ?? randomUUID(),
  };
  if (message.attributes !== undefined) outgoing.applicationProperties = withDiagnosticId(message.attributes);
  if (message.sessionId !== undefined) outgoing.sessionId = message.sessionId;
  if (message.correlationId !== undefined) outgoing.correlationId = message.correlationId;
  if (message.contentType !== undefined) outgoing.contentType = message.contentType;
  if (message.timeToLiveMs !== undefined) outgoing.timeToLive = message.timeToLiveMs;
  if (message.delayMs !== undefined && message.delayMs > 0)
    outgoing.scheduledEnqueueTimeUtc = new Date(nowMs + message.delayMs);
  return outgoing;
}

/** The W3C trace context's header, and where the Azure SDKs look for it in a message. */
const TRACEPARENT = "traceparent";
const DIAGNOSTIC_ID = "Diagnostic-Id";

/** Application properties of `attributes`: a message carrying a trace context names it as `Diagnostic-Id` too, as the Azure SDKs read it. */
function withDiagnosticId(attributes: Readonly<Record<string, string>>): Record<string, string> {
  const properties = { ...attributes };
  const traceparent = attributes[TRACEPARENT];
  if (traceparent !== undefined && properties[DIAGNOSTIC_ID] === undefined)
    properties[DIAGNOSTIC_ID] = traceparent;
  return properties;
}

/** The SDK's dead-letter options for a reason and an optional description. */
export function deadLetterOptions(reason: string, description: string | undefined): DeadLetterOptions {
  // The SDK's type asks for both, but it sends only what is set.
  return description === undefined
    ? ({ deadLetterReason: reason } as DeadLetterOptions)
    : { deadLetterReason: reason, deadLetterErrorDescription: description };
}

/** The bytes of a received body: data sections as they are, text as UTF-8, any other AMQP value as JSON. */
function bodyOf(body: unknown): Uint8Array {
  if (body instanceof Uint8Array) return body;
  if (typeof body === "string") return Buffer.from(body, "utf8");
  if (body === undefined || body === null) return new Uint8Array(0);
  return Buffer.from(JSON.stringify(body), "utf8");
}

/** An application property as text (other senders may use any AMQP type). */
function propertyText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString("base64");
  return typeof value === "object" && value !== null ? JSON.stringify(value) : String(value);
}

/** The attributes of a received message; on a dead-letter queue, the reason in queue-runtime's words and the source queue. */
function attributesOf(message: ServiceBusReceivedMessage, queue: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  const properties = message.applicationProperties;
  // `for...in`, not `Object.entries`: no array of pairs per message received.
  for (const key in properties) {
    const value = properties[key];
    if (value !== undefined && value !== null) attributes[key] = propertyText(value);
  }
  // The copy of the trace context made on send is hidden again: attributes come back as they were sent.
  if (attributes[DIAGNOSTIC_ID] !== undefined && attributes[DIAGNOSTIC_ID] === attributes[TRACEPARENT])
    delete attributes[DIAGNOSTIC_ID];
  const source = deadLetterSource(queue);
  if (source !== undefined) {
    const reason = message.deadLetterReason ?? attributes[DEAD_LETTER_ATTRIBUTES.reason];
    if (reason !== undefined) attributes[DEAD_LETTER_ATTRIBUTES.reason] = SERVICE_REASONS[reason] ?? reason;
    const description = message.deadLetterErrorDescription;
    if (description !== undefined) attributes[DEAD_LETTER_ATTRIBUTES.description] = description;
    attributes[DEAD_LETTER_ATTRIBUTES.sourceQueue] = source;
  }
  return attributes;
}

/**
 * What a delivery (`receivedAtMs` its time) or a peek (`receivedAtMs` undefined) shows of a
 * message from the SDK. A delivery counts itself (the JS SDK shows the service's count of earlier
 * ones); a peek shows the deliveries so far and, with no delivery times, the enqueue time for both.
 */
function messageFields(
  message: ServiceBusReceivedMessage,
  queue: string,
  nowMs: number,
  receivedAtMs: number | undefined,
): MessageFields {
  const enqueuedAtMs = message.enqueuedTimeUtc?.getTime() ?? nowMs;
  const deliveryCount = (message.deliveryCount ?? 0) + (receivedAtMs === undefined ? 0 : 1);
  return {
    messageId: message.messageId === undefined ? "" : String(message.messageId),
    body: bodyOf(message.body),
    attributes: attributesOf(message, queue),
    sessionId: message.sessionId,
    correlationId: message.correlationId === undefined ? undefined : String(message.correlationId),
    contentType: message.contentType,
    deliveryCount,
    enqueuedAtMs,
    firstDeliveredAtMs: deliveryCount === 1 && receivedAtMs !== undefined ? receivedAtMs : enqueuedAtMs,
    deliveredAtMs: receivedAtMs ?? enqueuedAtMs,
    sequenceNumber: message.sequenceNumber?.toString() ?? "",
  };
}

/**
 * A received message in queue-runtime's terms. The delivery count counts this delivery (the JS
 * SDK shows the service's count of earlier ones); Service Bus does not report when a message was
 * first delivered, so that is this delivery's time on a first delivery and its enqueue time after.
 */
export function toDelivery(
  message: ServiceBusReceivedMessage,
  queue: string,
  providerType: string,
  nowMs: number,
): Delivery {
  const lockToken = message.lockToken;
  if (lockToken === undefined)
    throw new QueueError("Provider", `a message received from ${queue} carries no lock token`);
  const lockedUntilMs = message.lockedUntilUtc?.getTime() ?? nowMs;
  return new Delivery(
    messageFields(message, queue, nowMs, nowMs),
    lockedUntilMs,
    new ReceiptHandle(providerType, queue, receiptToken(lockToken, message.sessionId), lockedUntilMs),
  );
}

/**
 * A peeked message in queue-runtime's terms. A peek shows the deliveries so far (Service Bus
 * counts them so for a peek) and no delivery times, so both show the enqueue time. Scheduled and
 * deferred messages are delayed: a receive gets neither. Every other message is active, locked
 * ones included: the SDK reads a lock's end off a peeked message when one is sent, but Service
 * Bus's peek does not tell whether a message is locked now (Azure's shows a past lock's end at
 * most, `serve --servicebus` none), as its counts do not (`capabilities.lockedCount` is false).
 */
export function toPeekedMessage(
  message: ServiceBusReceivedMessage,
  queue: string,
  nowMs: number,
): PeekedMessage {
  return peekedMessage(
    messageFields(message, queue, nowMs, undefined),
    message.state === "active" ? "active" : "delayed",
  );
}
