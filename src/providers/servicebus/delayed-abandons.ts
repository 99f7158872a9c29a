import type { Clock, TimerHandle } from "../../core/clock.js";
import type { ReceiptHandle } from "../../core/receipt-handle.js";
import type { Settlement } from "./settlement.js";

/**
 * Abandons with a delay, which Service Bus has no word for: the provider keeps the message's
 * lock (renewing it at half its remaining time) until the delay ends, then abandons it, so the
 * message comes back after the delay with its delivery count + 1 and its sequence number, as the
 * contract says. A message of a session is kept while its session holds (its lock is the
 * session's), and comes back when the session ends if that is sooner. A process that ends sooner
 * lets the lock lapse: the message then comes back when the lock ends, before the delay.
 */
export class DelayedAbandons {
  readonly #clock: Clock;
  readonly #settlement: Settlement;
  readonly #pending = new Map<string, { timer: TimerHandle; receipt: ReceiptHandle }>();

  constructor(clock: Clock, settlement: Settlement) {
    this.#clock = clock;
    this.#settlement = settlement;
  }

  /** Holds the lock of `receipt` for `delayMs`, then abandons it; fails at once (`InvalidReceipt`) when the lock is already gone. */
  async start(receipt: ReceiptHandle, delayMs: number): Promise<void> {
    const due = this.#clock.now() + delayMs;
    // A session's message is locked as long as its session: it is kept until the delay ends or the session does.
    const lockedUntil = this.#settlement.heldBySession(receipt, this.#clock.now())
      ? Number.POSITIVE_INFINITY
      : (await this.#settlement.renew(receipt)).getTime();
    // A later abandon of the same lock replaces an earlier one's delay.
    this.cancel(receipt);
    this.#schedule(receipt, due, lockedUntil);
  }

  /** Forgets the delayed abandon of `receipt`, if there is one (the message was settled otherwise). */
  cancel(receipt: ReceiptHandle): void {
    this.#pending.get(receipt.token)?.timer.cancel();
    this.#pending.delete(receipt.token);
  }

  #schedule(receipt: ReceiptHandle, due: number, lockedUntil: number): void {
    const now = this.#clock.now();
    const wake = Math.min(due, now + Math.max(0, (lockedUntil - now) / 2));
    const timer = this.#clock.setTimer(
      () => {
        this.#pending.delete(receipt.token);
        return this.#step(receipt, due);
      },
      wake - now,
      true,
    );
    this.#pending.set(receipt.token, { timer, receipt });
  }

  async #step(receipt: ReceiptHandle, due: number): Promise<void> {
    try {
      if (this.#clock.now() >= due) await this.#abandon(receipt);
      else this.#schedule(receipt, due, (await this.#settlement.renew(receipt)).getTime());
    } catch {
      // The lock is lost: the message is back on its queue already, as after any lost lock.
    }
  }

  #abandon(receipt: ReceiptHandle): Promise<void> {
    return this.#settlement.settle(receipt, "abandonMessage", (receiver, message) =>
      receiver.abandonMessage(message),
    );
  }

  /** Abandons every held message now (the provider is closing): they come back before their delays end. */
  async close(): Promise<void> {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const { timer } of pending) timer.cancel();
    await Promise.allSettled(pending.map(({ receipt }) => this.#abandon(receipt)));
  }
}
