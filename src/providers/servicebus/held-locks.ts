import type {
  ServiceBusReceivedMessage,
  ServiceBusReceiver,
  ServiceBusSessionReceiver,
} from "@azure/service-bus";
import type { ServiceBusReceipt } from "./receipts.js";

/** How many held messages make the next hold sweep out lost ones. */
const SWEEP_EVERY = 1_024;
/** How long after its lock ended an unsettled message is still remembered (a late settle then fails as lost either way). */
const LOST_LOCK_GRACE_MS = 60_000;

/** Either kind of SDK receiver: both settle and renew the same way. */
export type AnyReceiver = ServiceBusReceiver | ServiceBusSessionReceiver;

/** A message this provider received and has not settled: the SDK object and the receiver it came through. */
export interface HeldMessage {
  readonly message: ServiceBusReceivedMessage;
  readonly receiver: AnyReceiver;
  /** Told once the message is settled or its lock is known to be lost. */
  readonly released?: () => void;
}

/**
 * The messages this provider holds locks on, by lock token. The SDK settles a message through
 * the link it came on (or, once that link is gone, through `$management` by its lock token), and
 * it needs its own message object for either.
 */
export class HeldLocks {
  readonly #held = new Map<string, HeldMessage>();
  /** The size past which the next hold looks for locks long lost (messages never settled). */
  #sweepAt = SWEEP_EVERY;

  /** Records a received message under its (lower-case) lock token. */
  hold(held: HeldMessage, nowMs: number): void {
    const token = held.message.lockToken;
    if (token === undefined) return;
    this.#held.set(token.toLowerCase(), held);
    if (this.#held.size >= this.#sweepAt) this.#sweep(nowMs);
  }

  /**
   * Forgets messages whose locks ended a while ago and were never settled (their receiver
   * crashed mid-work, say), so they do not pile up; a renewal moves a lock's end, and the SDK
   * writes it on the message.
   */
  #sweep(nowMs: number): void {
    for (const [token, held] of this.#held)
      if ((held.message.lockedUntilUtc?.getTime() ?? 0) + LOST_LOCK_GRACE_MS < nowMs) {
        this.#held.delete(token);
        held.released?.();
      }
    this.#sweepAt = Math.max(SWEEP_EVERY, this.#held.size * 2);
  }

  /** The held message of a receipt, if this provider received it. */
  find(receipt: ServiceBusReceipt): HeldMessage | undefined {
    return this.#held.get(receipt.lockToken);
  }

  /** Forgets a message once settled or lost. */
  release(receipt: ServiceBusReceipt): void {
    const held = this.#held.get(receipt.lockToken);
    if (held === undefined) return;
    this.#held.delete(receipt.lockToken);
    held.released?.();
  }

  /** Forgets every message received through `receiver` (its session ended). */
  releaseAll(receiver: AnyReceiver): void {
    for (const [token, held] of this.#held)
      if (held.receiver === receiver) {
        this.#held.delete(token);
        held.released?.();
      }
  }

  /** Forgets everything (the provider closed). */
  clear(): void {
    this.#held.clear();
  }
}

/**
 * A stand-in for a message this provider did not receive (its receipt came from another client
 * or an earlier process), which the SDK settles and renews through `$management` by lock token:
 * with no link on its delivery, the SDK takes it for a deferred message, whose only way that is.
 */
export function foreignMessage(receipt: ServiceBusReceipt): ServiceBusReceivedMessage {
  return {
    lockToken: receipt.lockToken,
    sessionId: receipt.sessionId,
    messageId: undefined,
    body: undefined,
    delivery: { remote_settled: false },
    _rawAmqpMessage: {},
  } as unknown as ServiceBusReceivedMessage;
}
