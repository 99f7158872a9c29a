import type { ReceiptHandle } from "./receipt-handle.js";

/** The bytes of a message; a string is sent as UTF-8. */
export type MessageBody = Uint8Array | string;

/** A message to send. Only `body` is required. */
export interface Message {
  /** The payload; a string is encoded as UTF-8. */
  body: MessageBody;
  /** Application properties, carried unchanged. */
  attributes?: Record<string, string>;
  /** Puts the message in an ordered session (an SQS message group on FIFO queues). */
  sessionId?: string;
  /** Correlates this message with another, carried unchanged. */
  correlationId?: string;
  /** Your own id for the message; the provider generates one when absent. */
  messageId?: string;
  /** Identifies repeats within the queue's deduplication window (defaults to `messageId` there). */
  deduplicationId?: string;
  /** A MIME type describing the body, carried unchanged. */
  contentType?: string;
  /** How long the message may wait to be received before it expires. */
  timeToLiveMs?: number;
  /** How long after sending the message becomes visible to receivers. */
  delayMs?: number;
}

/** What `sendMessage` accepts: a whole message or just its body. */
export type MessageInput = Message | MessageBody;

/** A message as a receiver sees it, holding the lock described by its receipt handle. */
export interface ReceivedMessage {
  readonly messageId: string;
  readonly body: Uint8Array;
  readonly attributes: Readonly<Record<string, string>>;
  readonly sessionId: string | undefined;
  readonly correlationId: string | undefined;
  readonly contentType: string | undefined;
  /** How many times the message has been delivered, this delivery included (1 the first time). */
  readonly deliveryCount: number;
  readonly enqueuedAt: Date;
  readonly firstDeliveredAt: Date;
  readonly deliveredAt: Date;
  /** When this delivery's lock ends unless renewed. */
  readonly lockedUntil: Date;
  /** Increasing per queue where the provider numbers messages. */
  readonly sequenceNumber: string;
  /** Settles this delivery: complete, abandon, dead-letter or renew its lock. */
  readonly receiptHandle: ReceiptHandle;
  /** The body decoded as UTF-8. */
  text(): string;
  /** The body parsed as JSON. */
  json<T = unknown>(): T;
}

/**
 * What a provider knows of a message apart from any lock: the fields of a {@link ReceivedMessage}
 * and of a peeked message alike; instants in ms since the epoch.
 */
export interface MessageFields {
  messageId: string;
  body: Uint8Array;
  attributes: Record<string, string>;
  sessionId: string | undefined;
  correlationId: string | undefined;
  contentType: string | undefined;
  deliveryCount: number;
  enqueuedAtMs: number;
  firstDeliveredAtMs: number;
  deliveredAtMs: number;
  /** A number is turned into its decimal text only when read. */
  sequenceNumber: string | number;
}

const utf8 = new TextDecoder("utf-8");

/** A received message; instants are kept as numbers and turned into Dates when read. */
export class Delivery implements ReceivedMessage {
  readonly messageId: string;
  readonly body: Uint8Array;
  readonly attributes: Readonly<Record<string, string>>;
  readonly sessionId: string | undefined;
  readonly correlationId: string | undefined;
  readonly contentType: string | undefined;
  readonly deliveryCount: number;
  readonly receiptHandle: ReceiptHandle;
  #sequenceNumber: string | number;
  readonly #enqueuedAtMs: number;
  readonly #firstDeliveredAtMs: number;
  readonly #deliveredAtMs: number;
  readonly #lockedUntilMs: number;

  /**
   * A delivery of the message `fields` describes, locked until `lockedUntilMs`. The lock comes
   * apart from the fields so that no provider copies an object per message to add it (a spread on
   * this path once cost the memory provider four fifths of its speed).
   */
  constructor(fields: MessageFields, lockedUntilMs: number, receiptHandle: ReceiptHandle) {
    this.messageId = fields.messageId;
    this.body = fields.body;
    this.attributes = fields.attributes;
    this.sessionId = fields.sessionId;
    this.correlationId = fields.correlationId;
    this.contentType = fields.contentType;
    this.deliveryCount = fields.deliveryCount;
    this.#sequenceNumber = fields.sequenceNumber;
    this.receiptHandle = receiptHandle;
    this.#enqueuedAtMs = fields.enqueuedAtMs;
    this.#firstDeliveredAtMs = fields.firstDeliveredAtMs;
    this.#deliveredAtMs = fields.deliveredAtMs;
    this.#lockedUntilMs = lockedUntilMs;
  }

  get sequenceNumber(): string {
    if (typeof this.#sequenceNumber === "number") this.#sequenceNumber = String(this.#sequenceNumber);
    return this.#sequenceNumber;
  }
  get enqueuedAt(): Date {
    return new Date(this.#enqueuedAtMs);
  }
  get firstDeliveredAt(): Date {
    return new Date(this.#firstDeliveredAtMs);
  }
  get deliveredAt(): Date {
    return new Date(this.#deliveredAtMs);
  }
  get lockedUntil(): Date {
    return new Date(this.#lockedUntilMs);
  }

  text(): string {
    return utf8.decode(this.body);
  }

  json<T = unknown>(): T {
    return JSON.parse(this.text()) as T;
  }

  toJSON(): Record<string, unknown> {
    return {
      messageId: this.messageId,
      sequenceNumber: this.sequenceNumber,
      sessionId: this.sessionId,
      correlationId: this.correlationId,
      contentType: this.contentType,
      deliveryCount: this.deliveryCount,
      attributes: this.attributes,
      bodyBytes: this.body.byteLength,
      enqueuedAt: this.enqueuedAt.toISOString(),
      deliveredAt: this.deliveredAt.toISOString(),
      lockedUntil: this.lockedUntil.toISOString(),
    };
  }
}

/** The bytes of a body: strings as UTF-8, byte arrays copied so later changes by the caller do not leak in. */
export function bodyBytes(body: MessageBody): Uint8Array {
  if (typeof body === "string") return Buffer.from(body, "utf8");
  return Uint8Array.prototype.slice.call(body);
}

/** A message from what `sendMessage` accepts. */
export function toMessage(input: MessageInput): Message {
  return typeof input === "string" || input instanceof Uint8Array ? { body: input } : input;
}
