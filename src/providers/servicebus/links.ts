import type { ServiceBusClient, ServiceBusReceiver, ServiceBusSender } from "@azure/service-bus";
import { deadLetterSource } from "./message-mapping.js";

/**
 * The SDK senders and peek-lock receivers of one provider: one sender per queue, and per queue a
 * pool of receivers, since an SDK receiver takes one `receiveMessages` at a time and concurrent
 * receives each need their own. A receiver that fails, or that the SDK marked closed, is dropped
 * and a new one made on the next call: the SDK closes receivers silently (a drain left
 * unanswered, a connection lost), and a closed one would fail every later call.
 */
export class Links {
  readonly #client: ServiceBusClient;
  readonly #senders = new Map<string, ServiceBusSender>();
  /** Receivers not receiving now, per queue. */
  readonly #idle = new Map<string, ServiceBusReceiver[]>();
  /** Every receiver made and not dropped, to close at the end. */
  readonly #all = new Set<ServiceBusReceiver>();

  constructor(client: ServiceBusClient) {
    this.#client = client;
  }

  /** The sender of `queue`. */
  sender(queue: string): ServiceBusSender {
    let sender = this.#senders.get(queue);
    if (sender === undefined || sender.isClosed) {
      sender = this.#client.createSender(queue);
      this.#senders.set(queue, sender);
    }
    return sender;
  }

  /** A peek-lock receiver of `queue` for one receive, given back with {@link Links.giveBack}. */
  take(queue: string): ServiceBusReceiver {
    const idle = this.#idle.get(queue);
    for (let receiver = idle?.pop(); receiver !== undefined; receiver = idle?.pop())
      if (!receiver.isClosed) return receiver;
    const receiver = this.#create(queue);
    this.#all.add(receiver);
    return receiver;
  }

  /** Gives a receiver back after a receive, or drops it after a failure, so the next call opens a new one. */
  giveBack(queue: string, receiver: ServiceBusReceiver, failed: boolean): void {
    if (failed || receiver.isClosed) {
      this.#all.delete(receiver);
      receiver.close().catch(() => undefined);
      return;
    }
    const idle = this.#idle.get(queue);
    if (idle === undefined) this.#idle.set(queue, [receiver]);
    else idle.push(receiver);
  }

  /**
   * A receiver of `queue` to settle or renew through by lock token: the SDK sends those over the
   * queue's `$management` link, which it opens without receiving anything.
   */
  settler(queue: string): ServiceBusReceiver {
    const receiver = this.take(queue);
    this.giveBack(queue, receiver, false);
    return receiver;
  }

  #create(queue: string): ServiceBusReceiver {
    const source = deadLetterSource(queue);
    // No automatic lock renewal: the caller renews, and a lock it stops renewing must end on time.
    const options = {
      receiveMode: "peekLock",
      skipParsingBodyAsJson: true,
      skipConvertingDate: true,
      maxAutoLockRenewalDurationInMs: 0,
    } as const;
    return source === undefined
      ? this.#client.createReceiver(queue, options)
      : this.#client.createReceiver(source, { ...options, subQueueType: "deadLetter" });
  }

  /** Drops the sender of `queue` after a failure. */
  dropSender(queue: string, sender: ServiceBusSender): void {
    if (this.#senders.get(queue) !== sender) return;
    this.#senders.delete(queue);
    sender.close().catch(() => undefined);
  }

  /** Closes every sender and receiver. */
  async close(): Promise<void> {
    const all = [...this.#senders.values(), ...this.#all];
    this.#senders.clear();
    this.#idle.clear();
    this.#all.clear();
    await Promise.allSettled(all.map((link) => link.close()));
  }
}
