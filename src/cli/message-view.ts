import type { ReceivedMessage } from "../core/message.js";
import { printable, shortened } from "./output.js";

/** A message as the operator commands show it: what a receive or a peek gives, without its lock. */
export type ShownMessage = Omit<ReceivedMessage, "receiptHandle" | "lockedUntil">;

/** The most characters of a body a terminal table shows (the whole body is in the plain and JSON forms). */
const BODY_CELL_CHARACTERS = 60;

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** A message for `--json`: ids, counts and times, attributes, and the body as text (and base64 when it is not UTF-8). */
export function messageJson(message: ShownMessage): Record<string, unknown> {
  return {
    messageId: message.messageId,
    sequenceNumber: message.sequenceNumber,
    deliveryCount: message.deliveryCount,
    enqueuedAt: message.enqueuedAt.toISOString(),
    ...(message.sessionId === undefined ? {} : { sessionId: message.sessionId }),
    ...(message.correlationId === undefined ? {} : { correlationId: message.correlationId }),
    ...(message.contentType === undefined ? {} : { contentType: message.contentType }),
    attributes: message.attributes,
    body: message.text(),
    ...(isUtf8(message.body) ? {} : { bodyBase64: Buffer.from(message.body).toString("base64") }),
  };
}

/** The body as a terminal table's cell: one line, shortened. */
export function bodyCell(message: ShownMessage): string {
  return shortened(printable(message.text()), BODY_CELL_CHARACTERS);
}

/** The body as a plain line for a pipe: the text as it is, a line end it already has not doubled. */
export function bodyLine(message: ShownMessage): string {
  const text = message.text();
  return text.endsWith("\n") ? text.slice(0, -1) : text;
}

/** Whether `bytes` are well-formed UTF-8. */
function isUtf8(bytes: Uint8Array): boolean {
  try {
    strictUtf8.decode(bytes);
    return true;
  } catch {
    return false;
  }
}
