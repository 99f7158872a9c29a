import { type MessageInput, type QueueClient, subscriptionPath } from "../../src/index.js";
import { batchesOf, isFiltered, orderOf, PLAIN_QUEUE, RULE_SQL, subscriptionName, TOPIC } from "./orders.js";
import { closeThen, type Source, TAKE_WAIT_MS, type TopicSide, takeExactly } from "./topic-side.js";

/** Order `index` as our client sends it: string attributes, as the core's are. */
function messageOf(index: number): MessageInput {
  const order = orderOf(index);
  return {
    body: JSON.stringify(order.body),
    attributes: { region: order.region, amount: String(order.amount) },
  };
}

/** Creates the topic, its `subscriptions` (the odd ones filtered by the SQL rule) and the plain queue through `client.admin`. */
async function createTopic(client: QueueClient, subscriptions: number): Promise<void> {
  await client.admin.createTopic(TOPIC);
  for (let index = 0; index < subscriptions; index++)
    await client.admin.createSubscription(
      TOPIC,
      subscriptionName(index),
      isFiltered(index) ? { rules: [{ name: "eu", filter: { sql: RULE_SQL } }] } : {},
    );
  await client.admin.createQueue(PLAIN_QUEUE);
}

/**
 * The contest's side on our `client` (SQLite, PostgreSQL): `publishMessage` against
 * `sendMessage`, `receiveMessages` and `completeMessage`; `remove` deletes the store after.
 */
export async function clientSide(
  client: QueueClient,
  subscriptions: number,
  remove: () => Promise<void> | void,
): Promise<TopicSide> {
  try {
    await createTopic(client, subscriptions);
  } catch (error) {
    await client.close();
    await remove();
    throw error;
  }
  const queueOf = (source: Source) =>
    source === "plain" ? PLAIN_QUEUE : subscriptionPath(TOPIC, subscriptionName(source));
  return {
    publish: async (index) => {
      await client.publishMessage(TOPIC, messageOf(index));
    },
    send: async (index) => {
      await client.sendMessage(PLAIN_QUEUE, messageOf(index));
    },
    async publishAll(from, to) {
      for (const batch of batchesOf(from, to, 100)) await client.publishMessages(TOPIC, batch.map(messageOf));
    },
    take: (source, count, batch) =>
      takeExactly(queueOf(source), count, batch, async (most) => {
        const received = await client.receiveMessages(queueOf(source), most, TAKE_WAIT_MS);
        await Promise.all(received.map((message) => client.completeMessage(message.receiptHandle)));
        return received.length;
      }),
    close: () => closeThen(() => client.close(), remove),
  };
}
