import {
  ServiceBusClient,
  type ServiceBusMessage,
  type ServiceBusReceiver,
  type ServiceBusSender,
} from "@azure/service-bus";
import { batchesOf, orderOf, PLAIN_QUEUE, subscriptionName, TOPIC } from "./orders.js";
import { closeThen, TAKE_WAIT_MS, type TopicSide, takeExactly } from "./topic-side.js";

/** Order `index` as an SDK user sends it: the body as an object, the attributes as application properties. */
function messageOf(index: number): ServiceBusMessage {
  const { body, region, amount } = orderOf(index);
  return { body, applicationProperties: { region, amount } };
}

/**
 * The contest's side under `@azure/service-bus`, used as its docs show: one `ServiceBusClient`
 * (one connection), `createSender("orders").sendMessages(message)` against a sender to the
 * plain queue, and `createReceiver("orders", "s0")` in peek-lock, completing each message
 * received. `stop` stops the server and removes its store after the client is closed.
 */
export function sdkSide(
  connectionString: string,
  subscriptions: number,
  stop: () => Promise<void>,
): TopicSide {
  // No retries: a failure should end the benchmark, not hide in its numbers.
  const client = new ServiceBusClient(connectionString, {
    retryOptions: { maxRetries: 0, timeoutInMs: 30_000 },
  });
  const topic: ServiceBusSender = client.createSender(TOPIC);
  const plain: ServiceBusSender = client.createSender(PLAIN_QUEUE);
  const receivers: ServiceBusReceiver[] = Array.from({ length: subscriptions }, (_, index) =>
    client.createReceiver(TOPIC, subscriptionName(index), { receiveMode: "peekLock" }),
  );
  const plainReceiver = client.createReceiver(PLAIN_QUEUE, { receiveMode: "peekLock" });
  return {
    publish: (index) => topic.sendMessages(messageOf(index)),
    send: (index) => plain.sendMessages(messageOf(index)),
    async publishAll(from, to) {
      for (const batch of batchesOf(from, to, 100)) await topic.sendMessages(batch.map(messageOf));
    },
    take(source, count, batch) {
      const receiver = source === "plain" ? plainReceiver : receivers[source]!;
      return takeExactly(receiver.entityPath, count, batch, async (most) => {
        const received = await receiver.receiveMessages(most, { maxWaitTimeInMs: TAKE_WAIT_MS });
        await Promise.all(received.map((message) => receiver.completeMessage(message)));
        return received.length;
      });
    },
    close: () => closeThen(() => client.close(), stop),
  };
}
