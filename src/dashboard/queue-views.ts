import type { PeekedMessage, QueueStats } from "../core/admin.js";
import type { DeliveryItem } from "../receiving/index.js";
import { DEAD_LETTER_ATTRIBUTES } from "../rules/dead-letters.js";

/** The most bytes of a body the page is sent: a dashboard shows messages, it does not download them. */
export const SHOWN_BODY_BYTES = 16 * 1024;

/** A queue as the dashboard lists it: its counts and how it relates to dead-letter queues. */
export interface QueueSummary extends QueueStats {
  readonly name: string;
  /** Where this queue's dead letters go, when it has a dead-letter queue. */
  readonly deadLetterQueue: string | null;
  /** The queues whose dead letters come here: not empty for a dead-letter queue. */
  readonly deadLetterSources: readonly string[];
  /** The topic whose subscription this queue is (or whose subscription's dead letters it holds), else `null`. */
  readonly topic: string | null;
}

/** A topic as the dashboard lists it. */
export interface TopicSummary {
  readonly name: string;
  readonly subscriptions: number;
  readonly published: number;
}

/** Why a dead letter was dead-lettered, from the attributes it gained. */
export interface DeadLetterView {
  readonly reason: string | null;
  readonly description: string | null;
  readonly sourceQueue: string | null;
}

/** A peeked message as the page shows it: a body as text (or base64 when it is not UTF-8), cut to {@link SHOWN_BODY_BYTES}. */
export interface MessageView {
  readonly messageId: string;
  readonly sequenceNumber: string;
  readonly state: PeekedMessage["state"];
  readonly deliveryCount: number;
  readonly enqueuedAt: string;
  readonly sessionId: string | null;
  readonly body: string;
  readonly bodyEncoding: "utf8" | "base64";
  /** The body's whole length in bytes; more than the bytes shown when it was cut. */
  readonly bodyBytes: number;
  readonly truncated: boolean;
  readonly attributes: Readonly<Record<string, string>>;
  /** Present on a dead letter. */
  readonly deadLetter: DeadLetterView | null;
}

/** A failed delivery or parked message as the page shows it: never a body, as `deliveries list` never prints one. */
export interface DeliveryView {
  readonly id: string;
  readonly kind: DeliveryItem["kind"];
  readonly label: string;
  readonly reason: string;
  readonly problems: readonly { readonly field: string; readonly rule: string }[];
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** What the page shows of a peeked message. */
export function messageView(message: PeekedMessage): MessageView {
  const shown = message.body.subarray(0, SHOWN_BODY_BYTES);
  const text = utf8Text(shown, message.body.length > SHOWN_BODY_BYTES);
  const attributes = message.attributes;
  const reason = attributes[DEAD_LETTER_ATTRIBUTES.reason];
  const sourceQueue = attributes[DEAD_LETTER_ATTRIBUTES.sourceQueue];
  return {
    messageId: message.messageId,
    sequenceNumber: message.sequenceNumber,
    state: message.state,
    deliveryCount: message.deliveryCount,
    enqueuedAt: message.enqueuedAt.toISOString(),
    sessionId: message.sessionId ?? null,
    body: text ?? Buffer.from(shown).toString("base64"),
    bodyEncoding: text === undefined ? "base64" : "utf8",
    bodyBytes: message.body.length,
    truncated: message.body.length > SHOWN_BODY_BYTES,
    attributes: { ...attributes },
    deadLetter:
      reason === undefined && sourceQueue === undefined
        ? null
        : {
            reason: reason ?? null,
            description: attributes[DEAD_LETTER_ATTRIBUTES.description] ?? null,
            sourceQueue: sourceQueue ?? null,
          },
  };
}

/** What the page shows of a failed delivery or parked message. */
export function deliveryView(item: DeliveryItem): DeliveryView {
  return {
    id: item.id,
    kind: item.kind,
    label: item.label,
    reason: item.reason,
    problems: (item.problems ?? []).map(({ field, rule }) => ({ field, rule })),
  };
}

/** `bytes` as UTF-8 text, or `undefined` when they are not; a cut body may end inside a character, which is dropped. */
function utf8Text(bytes: Uint8Array, cut: boolean): string | undefined {
  // A character is at most 4 bytes: trying up to 3 shorter ends finds where the last whole one ends.
  for (let drop = 0; drop <= (cut ? 3 : 0); drop++) {
    try {
      return strictUtf8.decode(bytes.subarray(0, bytes.length - drop));
    } catch {
      // Not UTF-8 at this length.
    }
  }
  return undefined;
}
