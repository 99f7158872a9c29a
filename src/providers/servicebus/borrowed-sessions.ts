import type { ServiceBusSessionReceiver } from "@azure/service-bus";
import { QueueError } from "../../core/errors.js";
import type { Delivery } from "../../core/message.js";
import { toDelivery } from "./message-mapping.js";
import { acceptSdkSession, receiveThrough, type SessionDeps } from "./sessions.js";

/** How long a plain receive waits for more messages of a session it has just locked. */
const SESSION_RECEIVE_MS = 100;

/**
 * Plain receives from a queue that requires sessions, which Service Bus refuses outright: each
 * locks the next free session, takes its first messages, and keeps the session locked until all
 * of them are settled or lost, then lets it go. So a plain receiver gets a session's messages in
 * order and never two receivers the same session at once, as a FIFO message group does on SQS.
 */
export class BorrowedSessions {
  readonly #deps: SessionDeps;
  readonly #open = new Set<ServiceBusSessionReceiver>();

  constructor(deps: SessionDeps) {
    this.#deps = deps;
  }

  /** Receives up to `max` messages of the next free session of `queue`, waiting up to `waitMs` for one. */
  async receive(queue: string, max: number, waitMs: number, signal: AbortSignal): Promise<Delivery[]> {
    let receiver: ServiceBusSessionReceiver;
    try {
      receiver = await acceptSdkSession(this.#deps, queue, undefined, waitMs, signal);
    } catch (error) {
      if (QueueError.is(error, "NoSessionAvailable") || QueueError.is(error, "ClientClosed")) return [];
      throw error;
    }
    this.#open.add(receiver);
    try {
      const messages = await receiveThrough(receiver, max, SESSION_RECEIVE_MS, signal);
      if (messages.length === 0) {
        await this.#letGo(receiver);
        return [];
      }
      let outstanding = messages.length;
      const released = () => {
        if (--outstanding === 0) void this.#letGo(receiver);
      };
      const now = this.#deps.clock.now();
      return messages.map((message) => {
        this.#deps.held.hold({ message, receiver, released }, now);
        return toDelivery(message, queue, this.#deps.providerType, now);
      });
    } catch (error) {
      await this.#letGo(receiver);
      throw error;
    }
  }

  async #letGo(receiver: ServiceBusSessionReceiver): Promise<void> {
    if (!this.#open.delete(receiver)) return;
    this.#deps.held.releaseAll(receiver);
    await receiver.close().catch(() => undefined);
  }

  /** Lets every borrowed session go. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#open].map((receiver) => this.#letGo(receiver)));
  }
}
