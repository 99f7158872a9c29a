import type { Message, Options } from "amqplib";
import type { MessageFields } from "../../core/message.js";
import type { OutgoingMessage } from "../../core/provider.js";
import { parseSubscriptionPath } from "../../core/topics.js";
import { DEAD_LETTER_ATTRIBUTES, DEAD_LETTER_REASONS } from "../../rules/dead-letters.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import type { BrokerNames } from "./names.js";

/** The headers queue-runtime keeps its own fields in (AMQP properties carry the rest). */
export const HEADERS = {
  attributes: "qr-attributes",
  session: "qr-session",
  enqueued: "qr-enqueued",
  expires: "qr-expires",
  /** `<deliveries so far>@<broker queue>`: the deliveries a message had before it moved (to a holding queue and back). */
  deliveries: "qr-deliveries",
} as const;

/** What a publish of one message needs besides its queue. */
export interface PublishParts {
  readonly content: Buffer;
  readonly options: Options.Publish;
}

/** The publish of a new message: fields in properties and headers; the broker expires it when `expiresInMs` is given. */
export function newMessageParts(
  message: OutgoingMessage,
  messageId: string,
  nowMs: number,
  timeToLiveMs: number | null,
  brokerExpiry: boolean,
): PublishParts {
  const headers: Record<string, unknown> = { [HEADERS.enqueued]: nowMs };
  setAttributes(headers, message.attributes ?? {});
  if (message.sessionId !== undefined) headers[HEADERS.session] = message.sessionId;
  if (timeToLiveMs !== null) headers[HEADERS.expires] = nowMs + timeToLiveMs;
  return {
    content: Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength),
    options: {
      persistent: true,
      messageId,
      headers,
      ...(message.correlationId === undefined ? {} : { correlationId: message.correlationId }),
      ...(message.contentType === undefined ? {} : { contentType: message.contentType }),
      ...(timeToLiveMs !== null && brokerExpiry ? { expiration: String(timeToLiveMs) } : {}),
    },
  };
}

/**
 * The publish of a message received before, to `brokerQueue`: the same fields, with the headers
 * changed by `change` (the broker's own bookkeeping headers left behind).
 */
export function copyParts(
  message: Message,
  change: (headers: Record<string, unknown>, attributes: Record<string, string>) => void,
): PublishParts {
  const headers: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(message.properties.headers ?? {}))
    if (!key.startsWith("x-") && key !== "qr-publish") headers[key] = value;
  const attributes = attributesOf(message);
  change(headers, attributes);
  setAttributes(headers, attributes);
  const { properties } = message;
  return {
    content: message.content,
    options: {
      persistent: true,
      headers,
      ...(properties.messageId === undefined ? {} : { messageId: properties.messageId as string }),
      ...(properties.correlationId === undefined
        ? {}
        : { correlationId: properties.correlationId as string }),
      ...(properties.contentType === undefined ? {} : { contentType: properties.contentType as string }),
    },
  };
}

/** The publish of a copy of `message` back to `brokerQueue`, carrying the `deliveries` it has had there. */
export function copyWithDeliveries(message: Message, deliveries: number, brokerQueue: string): PublishParts {
  return copyParts(message, (headers) => {
    headers[HEADERS.deliveries] = `${deliveries}@${brokerQueue}`;
  });
}

/** Puts `attributes` in `headers`; none is no header (each header costs every publish and delivery). */
function setAttributes(headers: Record<string, unknown>, attributes: Readonly<Record<string, string>>): void {
  if (Object.keys(attributes).length > 0) headers[HEADERS.attributes] = JSON.stringify(attributes);
  else delete headers[HEADERS.attributes];
}

/** The application attributes a message carries. */
export function attributesOf(message: Message): Record<string, string> {
  const text = message.properties.headers?.[HEADERS.attributes];
  if (typeof text !== "string") return {};
  try {
    return JSON.parse(text) as Record<string, string>;
  } catch {
    return {};
  }
}

/** The deliveries a message had before it came to `brokerQueue` (after a delay), and how many this queue counted. */
export function deliveriesBefore(message: Message, brokerQueue: string): number {
  const carried = message.properties.headers?.[HEADERS.deliveries];
  let before = 0;
  if (typeof carried === "string") {
    const at = carried.indexOf("@");
    if (at > 0 && carried.slice(at + 1) === brokerQueue) before = Number(carried.slice(0, at)) || 0;
  }
  const counted = Number(message.properties.headers?.["x-delivery-count"] ?? 0);
  return before + (Number.isFinite(counted) ? counted : 0);
}

/** When the message's time to live ends (ms since the epoch), if it has one. */
export function expiresAtOf(message: Message): number | undefined {
  const expires = message.properties.headers?.[HEADERS.expires];
  return typeof expires === "number" ? expires : undefined;
}

/**
 * When a copy in subscription `queue` ends by the subscription's own default time to live, for a
 * message published with none: the broker makes a topic's copies from one publish, so a
 * subscription's default is applied as its copies are received.
 */
export function subscriptionExpiry(queue: string, record: QueueRecord, message: Message): number | undefined {
  if (record.defaultTimeToLiveMs === null || parseSubscriptionPath(queue) === undefined) return undefined;
  const enqueued = message.properties.headers?.[HEADERS.enqueued];
  return typeof enqueued === "number" ? enqueued + record.defaultTimeToLiveMs : undefined;
}

/** The broker's reasons for dead-lettering (`x-death`) as queue-runtime names them. */
const BROKER_REASONS: Readonly<Record<string, string>> = {
  delivery_limit: DEAD_LETTER_REASONS.maxDeliveryCount,
  expired: DEAD_LETTER_REASONS.expired,
  rejected: "Rejected",
  maxlen: "MaxLengthExceeded",
};

interface DeathEntry {
  readonly queue?: unknown;
  readonly reason?: unknown;
}

/**
 * The attributes of a message as a receiver sees them: a message the broker dead-lettered itself
 * (delivery limit, expiry) gains the dead-letter attributes from its `x-death` header, naming the
 * queue-runtime queue it came from. Expiries in a holding queue are how delays end, not dead letters.
 */
export function receivedAttributes(message: Message, names: BrokerNames): Record<string, string> {
  const attributes = attributesOf(message);
  if (attributes[DEAD_LETTER_ATTRIBUTES.reason] !== undefined) return attributes;
  const deaths = message.properties.headers?.["x-death"];
  if (!Array.isArray(deaths)) return attributes;
  const death = (deaths as DeathEntry[]).find(
    (entry) => typeof entry.queue === "string" && !entry.queue.includes("~delay~"),
  );
  if (death === undefined || typeof death.queue !== "string") return attributes;
  attributes[DEAD_LETTER_ATTRIBUTES.reason] = BROKER_REASONS[String(death.reason)] ?? String(death.reason);
  attributes[DEAD_LETTER_ATTRIBUTES.sourceQueue] = names.owner(death.queue);
  return attributes;
}

/**
 * The fields of a received message; `deliveryCount` counts this delivery. A message without a
 * session of its own that the broker dead-lettered into a session has `queueSession` as its session.
 */
export function messageFields(
  message: Message,
  attributes: Record<string, string>,
  deliveryCount: number,
  nowMs: number,
  queueSession: string | undefined,
): MessageFields {
  const headers = message.properties.headers ?? {};
  const enqueued =
    typeof headers[HEADERS.enqueued] === "number" ? (headers[HEADERS.enqueued] as number) : nowMs;
  const session = headers[HEADERS.session];
  return {
    messageId: String(message.properties.messageId ?? ""),
    body: new Uint8Array(message.content.buffer, message.content.byteOffset, message.content.byteLength),
    attributes,
    sessionId: typeof session === "string" ? session : queueSession,
    correlationId: message.properties.correlationId as string | undefined,
    contentType: message.properties.contentType as string | undefined,
    deliveryCount,
    enqueuedAtMs: enqueued,
    firstDeliveredAtMs: nowMs,
    deliveredAtMs: nowMs,
    sequenceNumber: enqueued,
  };
}
