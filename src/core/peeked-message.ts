import type { PeekedMessage, PeekedState } from "./admin.js";
import { QueueError } from "./errors.js";
import type { MessageFields } from "./message.js";
import { validateCount } from "./validation.js";

/** The most messages one peek returns. */
export const MAX_PEEK = 1_000;

const utf8 = new TextDecoder("utf-8");

/** A peeked message from its fields and state. */
export function peekedMessage(fields: MessageFields, state: PeekedState): PeekedMessage {
  const body = fields.body;
  return {
    messageId: fields.messageId,
    body,
    attributes: fields.attributes,
    sessionId: fields.sessionId,
    correlationId: fields.correlationId,
    contentType: fields.contentType,
    deliveryCount: fields.deliveryCount,
    enqueuedAt: new Date(fields.enqueuedAtMs),
    firstDeliveredAt: new Date(fields.firstDeliveredAtMs),
    deliveredAt: new Date(fields.deliveredAtMs),
    sequenceNumber: String(fields.sequenceNumber),
    state,
    text: () => utf8.decode(body),
    json: <T = unknown>() => JSON.parse(utf8.decode(body)) as T,
  };
}

/** The largest sequence number: sequence numbers are 64-bit signed (Service Bus's are longs). */
const MAX_SEQUENCE = 2n ** 63n - 1n;

/** Checks a peek's arguments: `max` in 1..{@link MAX_PEEK}, `fromSequence` a sequence number's decimal text. */
export function validatePeek(max: unknown, fromSequence: unknown): void {
  validateCount("max", max, 1, MAX_PEEK);
  if (
    fromSequence !== undefined &&
    (typeof fromSequence !== "string" ||
      !/^\d{1,19}$/.test(fromSequence) ||
      BigInt(fromSequence) > MAX_SEQUENCE)
  )
    throw new QueueError(
      "Validation",
      `fromSequence must be a sequence number's decimal text, not ${JSON.stringify(fromSequence)}`,
    );
}

/** The `Unsupported` failure of a provider that cannot show messages without receiving them. */
export function peekUnsupported(provider: string): QueueError {
  return new QueueError(
    "Unsupported",
    `${provider} cannot show messages without receiving them (capabilities.peek is false)`,
  );
}
