import type { MessageFields } from "../../core/message.js";

/** The columns of a message row that every read shows (node-postgres gives bigints as text). */
export interface MessageRow {
  seq: string;
  message_id: string;
  session_id: string | null;
  body: Buffer;
  attributes: Record<string, string> | null;
  correlation_id: string | null;
  content_type: string | null;
  enqueued_at: string;
  delivery_count: number;
  first_delivered_at: string | null;
  delivered_at: string | null;
}

/** A row a receive locked: the message and its lock (its end and token). */
export interface LockedMessageRow extends MessageRow {
  visible_at: string;
  lock_token: string;
}

/** What a delivery and a peek show of a message row; a message never delivered shows its enqueue time for both. */
export function messageFields(row: MessageRow): MessageFields {
  return {
    messageId: row.message_id,
    body: row.body,
    attributes: row.attributes ?? {},
    sessionId: row.session_id ?? undefined,
    correlationId: row.correlation_id ?? undefined,
    contentType: row.content_type ?? undefined,
    deliveryCount: row.delivery_count,
    enqueuedAtMs: Number(row.enqueued_at),
    firstDeliveredAtMs: Number(row.first_delivered_at ?? row.enqueued_at),
    deliveredAtMs: Number(row.delivered_at ?? row.enqueued_at),
    sequenceNumber: row.seq,
  };
}
