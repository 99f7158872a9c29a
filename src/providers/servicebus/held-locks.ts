import type {
  ServiceBusReceivedMessage,
  ServiceBusReceiver,
  ServiceBusSessionReceiver,
} from "@azure/service-bus";
import type { ServiceBusReceipt } from "./receipts.js";

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

  /** Records a received message under its (lower-case) lock token. */
  hold(held: HeldMessage): void {
    const token = held.message.lockToken;
    if (token !== undefined) this.#held.set(token.toLowerCase(), held);
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
