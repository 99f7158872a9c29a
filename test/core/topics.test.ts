import { describe, expect, it } from "vitest";
import {
  type BatchEntryResult,
  type Capabilities,
  type OperationContext,
  type OutgoingMessage,
  parseSubscriptionPath,
  QueueError,
  type QueueProvider,
  StandardQueueClient,
  subscriptionPath,
  type TopicProvider,
  VirtualClock,
} from "../../src/index.js";
import { createMemoryProvider } from "../../src/providers/memory/memory-provider.js";
import { FailingProvider } from "../../src/testing/index.js";

/** The plain queue the double keeps a subscription's copies in. */
const fanOutQueue = (topic: string, subscription: string) => `fan-out.${topic}.${subscription}`;

/**
 * A provider double with topics: each topic fans out to a queue per subscription, with no
 * filters. Only what the client's own checks need is here; the providers' topics are judged by
 * the contract suite.
 */
class FanOutProvider extends FailingProvider {
  readonly publishes: number[] = [];
  readonly subscriptions = new Map<string, string[]>();
  readonly #capabilities: Capabilities;

  constructor(inner: QueueProvider) {
    super(inner);
    this.#capabilities = { ...inner.capabilities, topics: true, filters: ["correlation"] };
  }

  override get capabilities(): Capabilities {
    return this.#capabilities;
  }

  readonly topics: TopicProvider = {
    publishMessages: async (
      topic: string,
      messages: readonly OutgoingMessage[],
      context: OperationContext,
    ): Promise<BatchEntryResult[]> => {
      this.publishes.push(messages.length);
      const refused = messages.findIndex((message) => Buffer.from(message.body).toString() === "refuse");
      if (refused >= 0)
        return messages.map((_, index) =>
          index === refused
            ? { ok: false, error: new QueueError("Validation", "refused by the topic") }
            : { ok: true, messageId: `m${index}` },
        );
      let results: BatchEntryResult[] = messages.map((message, index) => ({
        ok: true,
        messageId: message.messageId ?? `m${index}`,
      }));
      for (const name of this.subscriptions.get(topic) ?? [])
        results = await this.sendMessages(fanOutQueue(topic, name), messages, context);
      return results;
    },
    createTopic: async (name) => ({
      name,
      defaultTimeToLiveMs: null,
      maxMessageBytes: 1,
      createdAt: new Date(0),
    }),
    deleteTopic: async () => undefined,
    listTopics: async () => [...this.subscriptions.keys()],
    getTopic: async () => null,
    getTopicStats: async () => ({ subscriptions: 0, published: 0 }),
    createSubscription: async (topic, name) => {
      this.subscriptions.set(topic, [...(this.subscriptions.get(topic) ?? []), name]);
      const info = await this.admin.createQueue(fanOutQueue(topic, name));
      return { ...info, topic, subscription: name, forwardTo: null };
    },
    deleteSubscription: async () => undefined,
    listSubscriptions: async (topic) => this.subscriptions.get(topic) ?? [],
    getSubscription: async () => null,
    createRule: async () => undefined,
    deleteRule: async () => undefined,
    listRules: async () => [],
  };
}

/** A provider double without topics, whatever the provider it wraps has. */
class NoTopicsProvider extends FailingProvider {
  override get capabilities(): Capabilities {
    return { ...super.capabilities, topics: false, filters: [] };
  }
}

async function clientOf(withTopics: boolean) {
  const clock = new VirtualClock();
  const memory = await createMemoryProvider({ type: "memory", clock }, { createQueues: true });
  const provider = withTopics ? new FanOutProvider(memory) : new NoTopicsProvider(memory);
  return { client: new StandardQueueClient(provider, { clock }), provider };
}

describe("subscription paths", () => {
  it("name a subscription as <topic>/subscriptions/<name>, and read Service Bus's spelling too", () => {
    expect(subscriptionPath("orders", "billing")).toBe("orders/subscriptions/billing");
    expect(parseSubscriptionPath("orders/subscriptions/billing")).toEqual({
      topic: "orders",
      subscription: "billing",
    });
    expect(parseSubscriptionPath("orders/Subscriptions/billing")).toEqual({
      topic: "orders",
      subscription: "billing",
    });
    expect(parseSubscriptionPath("eu/orders/SUBSCRIPTIONS/billing")).toEqual({
      topic: "eu/orders",
      subscription: "billing",
    });
    expect(parseSubscriptionPath("orders")).toBeUndefined();
    expect(parseSubscriptionPath("orders/subscriptions/")).toBeUndefined();
    expect(() => subscriptionPath("", "billing")).toThrow(QueueError);
  });
});

describe("publishing through the client", () => {
  it("splits a publish to the provider's batch size, resolves the ids in order and counts them", async () => {
    const { client, provider } = await clientOf(true);
    const fanOut = provider as FanOutProvider;
    await client.admin.createSubscription("orders", "billing");
    const ids = await client.publishMessages(
      "orders",
      Array.from({ length: 150 }, (_, i) => ({ body: `m${i}`, messageId: `id-${i}` })),
    );
    expect(fanOut.publishes).toEqual([100, 50]);
    expect(ids).toEqual(Array.from({ length: 150 }, (_, i) => `id-${i}`));
    expect(client.metrics.published).toBe(150);
    expect(client.metrics.sent).toBe(0);
    const received = await client.receiveMessages(fanOutQueue("orders", "billing"), 2);
    expect(received.map((message) => message.messageId)).toEqual(["id-0", "id-1"]);
    await client.close();
  });

  it("throws a publish of one's own refusal, and checks messages and names before the provider sees them", async () => {
    const { client, provider } = await clientOf(true);
    const fanOut = provider as FanOutProvider;
    await expect(client.publishMessage("orders", "refuse")).rejects.toMatchObject({
      code: "Validation",
      message: "refused by the topic",
    });
    await expect(client.publishMessage("bad name!", "x")).rejects.toMatchObject({ code: "Validation" });
    await expect(client.publishMessage("orders", { body: 5 } as never)).rejects.toMatchObject({
      code: "Validation",
    });
    await expect(client.publishMessages("orders", "x" as never)).rejects.toThrow(/array of messages/);
    expect(fanOut.publishes).toEqual([1]);
    await expect(client.admin.createSubscription("orders", "a/b")).rejects.toThrow(/may not hold '\/'/);
    await expect(client.admin.createRule("orders", "a/b", "r", { sql: "1=1" })).rejects.toMatchObject({
      code: "Validation",
    });
    await client.close();
  });

  it("is Unsupported, naming the provider, where the provider has no topics", async () => {
    const { client } = await clientOf(false);
    expect(client.capabilities.topics).toBe(false);
    await expect(client.publishMessage("orders", "x")).rejects.toMatchObject({
      code: "Unsupported",
      message: "the memory provider has no topics",
    });
    await expect(client.admin.createTopic("orders")).rejects.toMatchObject({ code: "Unsupported" });
    await expect(client.admin.listTopics()).rejects.toMatchObject({ code: "Unsupported" });
    await client.close();
  });
});
