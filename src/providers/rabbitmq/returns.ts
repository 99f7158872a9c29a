import type { Channel, Message } from "amqplib";
import type { Publisher } from "./connection.js";
import { copyWithDeliveries, deliveriesBefore } from "./message-mapping.js";

/** How long a return is waited for to show in its queue's count (real time: the broker's own lag). */
const RETURN_WAIT_MS = 2_000;

/**
 * Waits until `brokerQueue` counts at least `ready` messages ready, or `elsewhere()` says the
 * returned messages went another way, or {@link RETURN_WAIT_MS} passed. A quorum queue applies a
 * nack once its log has it, and its count (a passive declare) reads what is applied: a return is
 * waited for so that the next receive, of this client or another, finds the message where it was.
 */
export async function awaitReady(
  channel: Channel,
  brokerQueue: string,
  ready: number,
  elsewhere: () => boolean,
): Promise<void> {
  const deadline = Date.now() + RETURN_WAIT_MS;
  for (;;) {
    const { messageCount } = await channel.checkQueue(brokerQueue);
    if (messageCount >= ready || elsewhere() || Date.now() > deadline) return;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** A delivery to put back, with the deliveries its message has had. */
export interface Returned {
  readonly message: Message;
  readonly deliveries: number;
}

/** Orders deliveries of one channel as they were taken: by delivery tag. */
export function byDeliveryTag(a: Returned, b: Returned): number {
  return a.message.fields.deliveryTag - b.message.fields.deliveryTag;
}

/**
 * Puts `first` back at the head of `brokerQueue`, in their order, ahead of every message it holds
 * now: a quorum queue (3.10) may put a nacked message behind the others, which a session's order
 * cannot have. The rest of the queue is taken on `channel`, copies of all are published in order
 * (confirmed), each carrying its deliveries, and then every original is acknowledged.
 */
export async function putBackFirst(
  channel: Channel,
  publisher: Publisher,
  brokerQueue: string,
  first: readonly Returned[],
): Promise<void> {
  const all = [...first];
  for (;;) {
    const message = await channel.get(brokerQueue, { noAck: false });
    if (message === false) break;
    all.push({ message, deliveries: deliveriesBefore(message, brokerQueue) });
  }
  await Promise.all(
    all.map(({ message, deliveries }) => {
      const parts = copyWithDeliveries(message, deliveries, brokerQueue);
      return publisher.publish(brokerQueue, parts.content, parts.options);
    }),
  );
  for (const { message } of all) channel.ack(message);
}
