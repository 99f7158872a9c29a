import { BoundedCache } from "../../core/bounded-cache.js";
import type { Clock } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import type { DecodedMessage } from "./message-mapping.js";

/** Entries whose lock ended this long ago are dropped: their receipts can no longer dead-letter anything. */
export const FORGET_AFTER_EXPIRY_MS = 10_000;
const SWEEP_EVERY_MS = 10_000;
/** How many spent receipts, and latest receipts by message, are remembered (the oldest go first, all at once). */
const REMEMBERED_RECEIPTS = 50_000;

/** A message this client received and has not settled. */
export interface HeldMessage {
  readonly message: DecodedMessage;
  lockedUntilMs: number;
}

/**
 * The messages this client received and has not settled yet, by SQS receipt handle. SQS cannot
 * give a locked message back by its receipt, so a dead-letter copy is made from what was kept here.
 *
 * It also knows which receipts no longer hold a lock: those this client settled or released, and
 * those of a message this client received again since. SQS answers a settle with such a receipt
 * with success (a repeated delete, an older receipt's delete even deleting the message), so the
 * client refuses them itself with `InvalidReceipt`, as every other provider does; a receipt spent
 * in another process is SQS's to judge.
 */
export class ReceivedMessages {
  readonly #clock: Clock;
  readonly #held = new Map<string, HeldMessage>();
  /** Receipts that hold no lock any more. */
  readonly #spent = new BoundedCache<string, true>(REMEMBERED_RECEIPTS);
  /** The latest receipt of each message, by SQS message id. */
  readonly #latest = new BoundedCache<string, string>(REMEMBERED_RECEIPTS);
  #sweepAt = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Keeps a received message until it is settled or its lock has long ended; its earlier receipt is spent. */
  remember(message: DecodedMessage): void {
    const earlier = this.#latest.get(message.sqsMessageId);
    if (earlier !== undefined && earlier !== message.receiptHandle) this.#spend(earlier);
    this.#latest.set(message.sqsMessageId, message.receiptHandle);
    this.#held.set(message.receiptHandle, {
      message,
      lockedUntilMs: message.delivery.receiptHandle.expiresAtMs,
    });
    const now = this.#clock.now();
    if (now >= this.#sweepAt) this.#sweep(now);
  }

  /** The message a receipt handle locks, when this client received it (and its lock did not end long ago). */
  get(receiptHandle: string): HeldMessage | undefined {
    const held = this.#held.get(receiptHandle);
    // Whether the sweep has run yet must not change the answer.
    return held !== undefined && held.lockedUntilMs + FORGET_AFTER_EXPIRY_MS >= this.#clock.now()
      ? held
      : undefined;
  }

  /** Notes a longer lock. */
  extend(receiptHandle: string, lockedUntilMs: number): void {
    const held = this.#held.get(receiptHandle);
    if (held !== undefined) held.lockedUntilMs = lockedUntilMs;
  }

  /** Forgets a settled or released message: its receipt is spent. */
  forget(receiptHandle: string): void {
    this.#spend(receiptHandle);
  }

  /**
   * Settles a receipt with `settle`: refused at once when spent, and spent from the start, so a
   * second settle of it at the same moment is refused too; a settle that failed for another
   * reason than the lock gives the receipt back for a retry.
   */
  async settle(receiptHandle: string, settle: () => Promise<unknown>): Promise<void> {
    this.assertHolds(receiptHandle);
    this.#spent.set(receiptHandle, true);
    try {
      await settle();
    } catch (error) {
      if (!QueueError.is(error, "InvalidReceipt")) this.#spent.delete(receiptHandle);
      throw error;
    }
    this.#held.delete(receiptHandle);
  }

  /** `InvalidReceipt` for a receipt this client knows to be spent. */
  assertHolds(receiptHandle: string): void {
    if (this.#spent.get(receiptHandle) === true)
      throw new QueueError(
        "InvalidReceipt",
        "this receipt's lock is gone: the message was settled or received again",
      );
  }

  #spend(receiptHandle: string): void {
    this.#held.delete(receiptHandle);
    this.#spent.set(receiptHandle, true);
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
