import { QueueError } from "./errors.js";

const PREFIX = "qr1";

/**
 * The proof that a receiver holds a message's lock. It names its provider, queue and lock, so
 * it can be written down (`String(handle)`) and settled later by another client of the same
 * provider (`ReceiptHandle.parse(text)`).
 */
export class ReceiptHandle {
  /** The provider that issued the lock. */
  readonly providerType: string;
  /** The queue the message was received from. */
  readonly queue: string;
  /** The provider's own lock reference; opaque to everyone else. */
  readonly token: string;
  readonly #expiresAtMs: number;

  constructor(providerType: string, queue: string, token: string, expiresAtMs: number) {
    this.providerType = providerType;
    this.queue = queue;
    this.token = token;
    this.#expiresAtMs = expiresAtMs;
  }

  /** When the lock ends unless renewed (as known when the receipt was issued or last renewed). */
  get expiresAt(): Date {
    return new Date(this.#expiresAtMs);
  }

  /** The expiry in milliseconds since the epoch. */
  get expiresAtMs(): number {
    return this.#expiresAtMs;
  }

  /** True once the lock's known expiry has passed (`nowMs` defaults to the system time). */
  isExpired(nowMs: number = Date.now()): boolean {
    return nowMs >= this.#expiresAtMs;
  }

  /** The same lock with a later known expiry, after a renewal. */
  withExpiry(expiresAtMs: number): ReceiptHandle {
    return new ReceiptHandle(this.providerType, this.queue, this.token, expiresAtMs);
  }

  /** The text form, accepted by {@link ReceiptHandle.parse}. */
  toString(): string {
    return `${PREFIX}:${this.providerType}:${this.#expiresAtMs}:${encodeURIComponent(this.queue)}:${this.token}`;
  }

  toJSON(): string {
    return this.toString();
  }

  /** Reads the text form of a receipt; anything else fails with `InvalidReceipt`. */
  static parse(text: string): ReceiptHandle {
    if (typeof text !== "string") throw invalid("a receipt handle must be a string");
    const parts: string[] = [];
    let start = 0;
    for (let i = 0; i < 4; i++) {
      const colon = text.indexOf(":", start);
      if (colon < 0) throw invalid("this is not a queue-runtime receipt handle");
      parts.push(text.slice(start, colon));
      start = colon + 1;
    }
    const [prefix, providerType, expires, queue] = parts as [string, string, string, string];
    const token = text.slice(start);
    const expiresAtMs = Number(expires);
    if (prefix !== PREFIX || providerType === "" || token === "" || !Number.isSafeInteger(expiresAtMs))
      throw invalid("this is not a queue-runtime receipt handle");
    let queueName: string;
    try {
      queueName = decodeURIComponent(queue);
    } catch {
      throw invalid("the queue name in this receipt handle is not valid");
    }
    return new ReceiptHandle(providerType, queueName, token, expiresAtMs);
  }

  /** A receipt handle from either form, so APIs can take what the caller has. */
  static from(value: ReceiptHandle | string): ReceiptHandle {
    if (value instanceof ReceiptHandle) return value;
    return ReceiptHandle.parse(value);
  }
}

function invalid(message: string): QueueError {
  return new QueueError("InvalidReceipt", message);
}
