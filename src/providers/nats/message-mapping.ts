import { headers, type MsgHdrs } from "@nats-io/transport-node";
import type { MessageFields } from "../../core/message.js";
import type { OutgoingMessage } from "../../core/provider.js";

/** The header holding what queue-runtime keeps with a message, as one line of JSON. */
const META_HEADER = "QR-Meta";
/** JetStream's deduplication header: repeats within the stream's duplicate window are dropped. */
const MSG_ID_HEADER = "Nats-Msg-Id";

/** What queue-runtime keeps with a message besides its body. */
export interface MessageMeta {
  /** The message id. */
  readonly id: string;
  readonly attributes?: Record<string, string>;
  readonly sessionId?: string;
  readonly correlationId?: string;
  readonly contentType?: string;
  /** When the message was first sent (kept when a delay or a redrive moves it), ms since the epoch. */
  readonly enqueuedAt: number;
  /** When its time to live ends. */
  readonly expiresAt?: number;
  /** When its delay ends. */
  readonly visibleAt?: number;
}

/** The meta of a message sent now. */
export function outgoingMeta(
  message: OutgoingMessage,
  id: string,
  now: number,
  ttlMs: number | null,
  delayMs: number,
): MessageMeta {
  return {
    id,
    ...(message.attributes === undefined ? {} : { attributes: { ...message.attributes } }),
    ...(message.sessionId === undefined ? {} : { sessionId: message.sessionId }),
    ...(message.correlationId === undefined ? {} : { correlationId: message.correlationId }),
    ...(message.contentType === undefined ? {} : { contentType: message.contentType }),
    enqueuedAt: now,
    ...(ttlMs === null ? {} : { expiresAt: now + ttlMs }),
    ...(delayMs > 0 ? { visibleAt: now + delayMs } : {}),
  };
}

/** Headers carrying `meta` (and a deduplication id when given). */
export function metaHeaders(meta: MessageMeta, deduplicationId?: string): MsgHdrs {
  const set = headers();
  // JSON escapes line breaks, so the value stays one header line whatever the attributes hold.
  set.set(META_HEADER, JSON.stringify(meta));
  if (deduplicationId !== undefined) set.set(MSG_ID_HEADER, deduplicationId);
  return set;
}

/** The meta of a stored or delivered message; one without (published by something else) gets a stand-in. */
export function readMeta(set: MsgHdrs | undefined, fallbackId: string, fallbackTime: number): MessageMeta {
  const text = set?.get(META_HEADER);
  if (text !== undefined && text !== "") {
    try {
      return JSON.parse(text) as MessageMeta;
    } catch {
      // Fall through: a message published by hand with a broken header is still delivered.
    }
  }
  return { id: fallbackId, enqueuedAt: fallbackTime };
}

/** The fields of a message from its meta, body and delivery. */
export function messageFields(
  meta: MessageMeta,
  body: Uint8Array,
  sequence: number,
  deliveryCount: number,
  deliveredAtMs: number,
): MessageFields {
  return {
    messageId: meta.id,
    body,
    attributes: { ...meta.attributes },
    sessionId: meta.sessionId,
    correlationId: meta.correlationId,
    contentType: meta.contentType,
    deliveryCount,
    enqueuedAtMs: meta.enqueuedAt,
    firstDeliveredAtMs: deliveredAtMs,
    deliveredAtMs,
    sequenceNumber: sequence,
  };
}
