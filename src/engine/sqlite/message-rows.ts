import { QueueError } from "../../core/errors.js";
import { MESSAGE_STATES, type MessageLock, type MessageRecord } from "../records.js";

/** A message's state as stored: its index in {@link MESSAGE_STATES}. */
export const STATE_CODE = { ready: 0, delayed: 1, locked: 2 } as const;

/** What settlement and upkeep read: no payload (each column read costs, the body most). */
export const LOCK_COLUMNS =
  "seq, session_id, expires_at, state, visible_at, lock_token, delivery_count, first_delivered_at, delivered_at";
/** A whole message: its lock fields and its payload. */
export const MESSAGE_COLUMNS = `${LOCK_COLUMNS}, payload`;

/** A row of {@link LOCK_COLUMNS}, read in raw mode (arrays are built several times faster than objects). */
export type LockRow = [
  seq: number,
  sessionId: string | null,
  expiresAt: number | null,
  state: number,
  visibleAt: number,
  lockToken: string | null,
  deliveryCount: number,
  firstDeliveredAt: number | null,
  deliveredAt: number | null,
];

/** A row of {@link MESSAGE_COLUMNS}. */
export type MessageRow = [...LockRow, payload: Buffer];

/** A message's lock fields from its row. */
export function toLock(row: LockRow | MessageRow): MessageLock {
  return {
    seq: row[0],
    sessionId: row[1] ?? undefined,
    expiresAt: row[2],
    state: MESSAGE_STATES[row[3]]!,
    visibleAt: row[4],
    lockToken: row[5],
    deliveryCount: row[6],
    firstDeliveredAt: row[7],
    deliveredAt: row[8],
  };
}

/** A whole message from its row (built field by field: spreading two objects costs ten times more). */
export function toRecord(row: MessageRow): MessageRecord {
  const payload = decodePayload(row[9]);
  return {
    seq: row[0],
    sessionId: row[1] ?? undefined,
    expiresAt: row[2],
    state: MESSAGE_STATES[row[3]]!,
    visibleAt: row[4],
    lockToken: row[5],
    deliveryCount: row[6],
    firstDeliveredAt: row[7],
    deliveredAt: row[8],
    messageId: payload.messageId,
    body: payload.body,
    attributes: payload.attributes,
    correlationId: payload.correlationId,
    contentType: payload.contentType,
    properties: payload.properties,
    enqueuedAt: payload.enqueuedAt,
  };
}

/** What the engine does not index, rewritten only when a settlement edits attributes or properties: one column, read and written as one value. */
type Payload = Pick<
  MessageRecord,
  "messageId" | "body" | "attributes" | "correlationId" | "contentType" | "properties" | "enqueuedAt"
>;

const VERSION = 1;
const ABSENT_16 = 0xffff;
const ABSENT_32 = 0xffffffff;

const json = (value: Readonly<Record<string, string>> | undefined) =>
  value === undefined ? undefined : JSON.stringify(value);

/**
 * Encodes a message's payload: a version byte, the enqueue time, the message id, correlation id
 * and content type (length-prefixed; absent ones marked), attributes and properties as JSON, then
 * the body to the end.
 */
export function encodePayload(message: Payload): Buffer {
  const texts = [message.messageId, message.correlationId, message.contentType];
  const documents = [json(message.attributes), json(message.properties)];
  let size = 1 + 8 + message.body.byteLength;
  for (const text of texts) size += 2 + (text === undefined ? 0 : Buffer.byteLength(text));
  for (const document of documents) size += 4 + (document === undefined ? 0 : Buffer.byteLength(document));
  const buffer = Buffer.allocUnsafe(size);
  let offset = buffer.writeUInt8(VERSION, 0);
  offset = buffer.writeDoubleLE(message.enqueuedAt, offset);
  for (const text of texts) {
    if (text === undefined) offset = buffer.writeUInt16LE(ABSENT_16, offset);
    else {
      const length = buffer.write(text, offset + 2);
      buffer.writeUInt16LE(length, offset);
      offset += 2 + length;
    }
  }
  for (const document of documents) {
    if (document === undefined) offset = buffer.writeUInt32LE(ABSENT_32, offset);
    else {
      const length = buffer.write(document, offset + 4);
      buffer.writeUInt32LE(length, offset);
      offset += 4 + length;
    }
  }
  buffer.set(message.body, offset);
  return buffer;
}

/** Decodes what {@link encodePayload} wrote; the body is a view of the row's own copy. */
export function decodePayload(buffer: Buffer): Payload {
  if (buffer[0] !== VERSION) throw new QueueError("Provider", `unknown message payload version ${buffer[0]}`);
  let offset = 9;
  const text = (): string | undefined => {
    const length = buffer.readUInt16LE(offset);
    offset += 2;
    if (length === ABSENT_16) return undefined;
    offset += length;
    return buffer.toString("utf8", offset - length, offset);
  };
  const document = (): Record<string, string> | undefined => {
    const length = buffer.readUInt32LE(offset);
    offset += 4;
    if (length === ABSENT_32) return undefined;
    offset += length;
    return JSON.parse(buffer.toString("utf8", offset - length, offset)) as Record<string, string>;
  };
  const enqueuedAt = buffer.readDoubleLE(1);
  const messageId = text() ?? "";
  const correlationId = text();
  const contentType = text();
  const attributes = document();
  const properties = document();
  return {
    messageId,
    correlationId,
    contentType,
    attributes,
    properties,
    enqueuedAt,
    body: buffer.subarray(offset),
  };
}
