import type { Clock } from "../../core/clock.js";
import type { DecodedMessage } from "./message-mapping.js";

/** Entries whose lock ended this long ago are dropped: their receipts can no longer dead-letter anything. */
export const FORGET_AFTER_EXPIRY_MS = 10_000;
const SWEEP_EVERY_MS = 10_000;

/** A message this client received and has not settled. */
export interface HeldMessage {
  readonly message: DecodedMessage;
  lockedUntilMs: number;
}

/**
 * The messages this client received and has not settled yet, by SQS receipt handle. SQS cannot
 * give a locked message back by its receipt, so a dead-letter copy is made from what was kept here.
 */
export class ReceivedMessages {
  readonly #clock: Clock;
  readonly #held = new Map<string, HeldMessage>();
  #sweepAt = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Keeps a received message until it is settled or its lock has long ended. */
  remember(message: DecodedMessage): void {
    this.#held.set(message.receiptHandle, {
      message,
      lockedUntilMs: message.delivery.receiptHandle.expiresAtMs,
    });
    const now = this.#clock.now();
    if (now >= this.#sweepAt) this.#sweep(now);
  }

  /** The message a receipt handle locks, when this client received it. */
  get(receiptHandle: string): HeldMessage | undefined {
    return this.#held.get(receiptHandle);
  }

  /** Notes a longer lock. */
  extend(receiptHandle: string, lockedUntilMs: number): void {
    const held = this.#held.get(receiptHandle);
    if (held !== undefined) held.lockedUntilMs = lockedUntilMs;
  }

  /** Forgets a settled message. */
  forget(receiptHandle: string): void {
    this.#held.delete(receiptHandle);
  }

  /** How many messages are kept. */
  get size(): number {
    return this.#held.size;
  }

  #sweep(now: number): void {
    this.#sweepAt = now + SWEEP_EVERY_MS;
    for (const [handle, held] of this.#held)
      if (held.lockedUntilMs + FORGET_AFTER_EXPIRY_MS < now) this.#held.delete(handle);
  }
}
