import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import { QueueError } from "../../core/errors.js";
import type { ReceiptHandle } from "../../core/receipt-handle.js";
import { fromSdkError, type Redact } from "./errors.js";
import { type AnyReceiver, foreignMessage, type HeldLocks, type HeldMessage } from "./held-locks.js";
import type { Links } from "./links.js";
import { parseReceipt } from "./receipts.js";

/** One SDK call on a received message, through the receiver that should make it. */
export type MessageAction<T> = (receiver: AnyReceiver, message: ServiceBusReceivedMessage) => Promise<T>;

/** Codes after which the lock is gone for good: the message is no longer held. */
const LOCK_GONE = new Set(["InvalidReceipt", "SessionLockLost", "QueueNotFound"]);

/**
 * Settles and renews messages by receipt: through the receiver that received the message while
 * it is open (the SDK then uses its link), otherwise through any receiver of the queue, which the
 * SDK turns into a `$management` request by lock token. Service Bus allows that for messages
 * outside sessions; a session message's lock belongs to its session, so the service refuses it
 * (`SessionLockLost`, an invalid receipt here) once that session's receiver is gone.
 */
export class Settlement {
  readonly #links: Links;
  readonly #held: HeldLocks;
  readonly #redact: Redact;

  constructor(links: Links, held: HeldLocks, redact: Redact) {
    this.#links = links;
    this.#held = held;
    this.#redact = redact;
  }

  /** Settles the message of `receipt` with `action`; the lock is forgotten once it is used or lost. */
  async settle(receipt: ReceiptHandle, what: string, action: MessageAction<void>): Promise<void> {
    await this.#run(receipt, what, action, true);
  }

  /**
   * Whether `receipt` is of a message this provider holds through a session receiver still open,
   * before its lock ends: such a lock is its session's, renewed with the session, not alone.
   */
  heldBySession(receipt: ReceiptHandle, nowMs: number): boolean {
    const held = this.#held.find(parseReceipt(receipt));
    return (
      held !== undefined &&
      throughSession(held) &&
      !held.receiver.isClosed &&
      (held.message.lockedUntilUtc?.getTime() ?? 0) > nowMs
    );
  }

  /** Renews the lock of `receipt`; resolves its new expiry. */
  renew(receipt: ReceiptHandle): Promise<Date> {
    return this.#run(
      receipt,
      "renewMessageLock",
      (receiver, message) => receiver.renewMessageLock(message),
      false,
    );
  }

  async #run<T>(
    receipt: ReceiptHandle,
    what: string,
    action: MessageAction<T>,
    settles: boolean,
  ): Promise<T> {
    const parsed = parseReceipt(receipt);
    const found = this.#held.find(parsed);
    // The SDK will not renew a session's message on the session's link; asked by lock token, the
    // service says first whether the lock still holds, then that a session's lock renews with it.
    const held = settles || found === undefined || !throughSession(found) ? found : undefined;
    const receiver =
      held !== undefined && !held.receiver.isClosed ? held.receiver : this.#links.settler(receipt.queue);
    try {
      const result = await action(receiver, held?.message ?? foreignMessage(parsed));
      if (settles) this.#held.release(parsed);
      return result;
    } catch (error) {
      const failure = fromSdkError(error, `${what} on ${receipt.queue}`, this.#redact);
      if (LOCK_GONE.has(failure.code)) {
        this.#held.release(parsed);
        // The lock of a message, whatever the SDK calls its loss (its session's lost, its queue
        // gone), is what the caller no longer holds: the receipt is invalid, as on every provider.
        if (failure.code !== "InvalidReceipt")
          throw new QueueError("InvalidReceipt", failure.message, { cause: error });
      }
      throw failure;
    }
  }
}

/** Whether a held message came through a session receiver (its lock is its session's). */
function throughSession(held: HeldMessage): boolean {
  return "sessionId" in held.receiver;
}
