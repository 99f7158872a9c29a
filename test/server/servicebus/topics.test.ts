import type { ServiceBusClient, ServiceBusReceivedMessage } from "@azure/service-bus";
import { describe, expect, it } from "vitest";
import type { SubscriptionOptions } from "../../../src/core/topics.js";
import { parseEmulatorConfig } from "../../../src/server/servicebus/emulator-config.js";
import { applyEmulatorTopics } from "../../../src/server/servicebus/emulator-topics.js";
import { MAX_MESSAGE_BYTES } from "../../../src/server/servicebus/servicebus-server.js";
import { codeOf, createQueue, type Endpoint, startEndpoint } from "./harness.js";

/** An endpoint with topic `orders` and the given subscriptions. */
async function withTopic(subscriptions: Record<string, SubscriptionOptions>): Promise<Endpoint> {
  const endpoint = await startEndpoint();
  endpoint.engine.topics.create("orders", {}, MAX_MESSAGE_BYTES);
  for (const [name, options] of Object.entries(subscriptions))
    endpoint.engine.topics.subscribe("orders", name, options);
  return endpoint;
}

function bodies(messages: readonly ServiceBusReceivedMessage[]): unknown[] {
  return messages.map((message) => message.body);
}

/** The bodies of what subscription `name` of `orders` holds, received and deleted. */
async function takeAll(client: ServiceBusClient, name: string): Promise<unknown[]> {
  const receiver = client.createReceiver("orders", name, { receiveMode: "receiveAndDelete" });
  const got = await receiver.receiveMessages(10, { maxWaitTimeInMs: 300 });
  await receiver.close();
  return bodies(got);
}

describe("the Service Bus endpoint under the official SDK: topics and subscriptions", () => {
  it("publishes what a sender on a topic sends: each subscription whose rules match gets a copy", async () => {
    const { client, engine, errors } = await withTopic({
      billing: {},
      eu: { rules: [{ name: "eu", filter: { sql: "region = 'eu'" } }] },
      audit: { rules: [{ name: "json", filter: { correlation: { contentType: "application/json" } } }] },
    });
    const sender = client.createSender("orders");
    await sender.sendMessages([
      { body: "one", applicationProperties: { region: "eu" } },
      { body: "two", applicationProperties: { region: "us" }, contentType: "application/json" },
    ]);
    await sender.sendMessages({ body: "three" });
    const receive = (subscription: string) => takeAll(client, subscription);
    expect(await receive("billing")).toEqual(["one", "two", "three"]);
    expect(await receive("eu")).toEqual(["one"]);
    expect(await receive("audit")).toEqual(["two"]);
    expect(engine.topics.get("orders")?.published).toBe(3);
    // No queue was made of the topic's name.
    expect(engine.getQueueRecord("orders")).toBeUndefined();
    expect(errors).toEqual([]);
  });

  it("filters on a message's subject (label), to and replyTo, and refuses a batch whole when one message is refused", async () => {
    const { client, engine, errors } = await withTopic({
      labelled: { rules: [{ name: "label", filter: { sql: "sys.label = 'order.created'" } }] },
      addressed: { rules: [{ name: "to", filter: { correlation: { to: "warehouse", replyTo: "desk" } } }] },
      ordered: { requiresSession: true },
    });
    const sender = client.createSender("orders");
    await sender.sendMessages([
      { body: "created", subject: "order.created", sessionId: "s" },
      { body: "shipped", subject: "order.shipped", to: "warehouse", replyTo: "desk", sessionId: "s" },
    ]);
    const receive = (subscription: string) => takeAll(client, subscription);
    expect(await receive("labelled")).toEqual(["created"]);
    expect(await receive("addressed")).toEqual(["shipped"]);
    // The session subscription matches every message: one without a session id refuses the batch.
    const refused = await sender
      .sendMessages([{ body: "kept out", subject: "order.created", sessionId: "s" }, { body: "no session" }])
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(Error);
    expect(await receive("labelled")).toEqual([]);
    expect(engine.topics.get("orders")?.published).toBe(2);
    expect(errors).toEqual([]);
  });

  it("receives, completes, abandons, defers, renews and peeks on a subscription by either address", async () => {
    const { client, errors } = await withTopic({ billing: {} });
    await client.createSender("Orders").sendMessages([{ body: "a" }, { body: "b" }, { body: "c" }]);
    const peeker = client.createReceiver("orders/Subscriptions/billing");
    expect(bodies(await peeker.peekMessages(10))).toEqual(["a", "b", "c"]);
    await peeker.close();
    const receiver = client.createReceiver("orders", "billing");
    const [a, b, c] = await receiver.receiveMessages(3, { maxWaitTimeInMs: 1_000 });
    expect(bodies([a!, b!, c!])).toEqual(["a", "b", "c"]);
    const before = a!.lockedUntilUtc!.getTime();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await receiver.renewMessageLock(a!)).getTime()).toBeGreaterThan(before);
    await receiver.completeMessage(a!);
    await receiver.abandonMessage(b!);
    await receiver.deferMessage(c!);
    const [again] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 1_000 });
    expect(again?.body).toBe("b");
    expect(again?.deliveryCount).toBe(1);
    await receiver.completeMessage(again!);
    const [deferred] = await receiver.receiveDeferredMessages([c!.sequenceNumber!]);
    expect(deferred?.body).toBe("c");
    await receiver.completeMessage(deferred!);
    expect(await receiver.peekMessages(10)).toEqual([]);
    await receiver.close();
    expect(errors).toEqual([]);
  });

  it("dead-letters into the subscription's $DeadLetterQueue, received with subQueueType deadLetter", async () => {
    const { client, engine } = await withTopic({ billing: {}, shipping: {} });
    await client.createSender("orders").sendMessages({ body: "bad" });
    const receiver = client.createReceiver("orders", "billing");
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 1_000 });
    await receiver.deadLetterMessage(message!, {
      deadLetterReason: "Invalid",
      deadLetterErrorDescription: "no",
    });
    const deadLetters = client.createReceiver("orders", "billing", { subQueueType: "deadLetter" });
    const [dead] = await deadLetters.receiveMessages(1, { maxWaitTimeInMs: 1_000 });
    expect(dead?.body).toBe("bad");
    expect(dead?.deadLetterReason).toBe("Invalid");
    await deadLetters.completeMessage(dead!);
    const byAddress = client.createReceiver("orders/Subscriptions/billing/$DeadLetterQueue");
    expect(await byAddress.peekMessages(10)).toEqual([]);
    // The other subscription's copy is untouched.
    expect(engine.stats("orders/subscriptions/shipping").active).toBe(1);
    expect(engine.getQueueRecord("orders/subscriptions/billing/$deadletterqueue")).toBeDefined();
  });

  it("serves sessions on a subscription that requires them", async () => {
    const { client } = await withTopic({ billing: { requiresSession: true } });
    await client.createSender("orders").sendMessages([
      { body: "s1-a", sessionId: "s1" },
      { body: "s2-a", sessionId: "s2" },
      { body: "s1-b", sessionId: "s1" },
    ]);
    const session = await client.acceptSession("orders", "billing", "s1");
    const messages = await session.receiveMessages(10, { maxWaitTimeInMs: 500 });
    expect(bodies(messages)).toEqual(["s1-a", "s1-b"]);
    for (const message of messages) await session.completeMessage(message);
    await session.setSessionState("done");
    expect(await session.getSessionState()).toBe("done");
    await session.close();
    const next = await client.acceptNextSession("orders", "billing");
    expect(next.sessionId).toBe("s2");
    await next.close();
    const plain = client.createReceiver("orders", "billing");
    expect(await codeOf(plain.receiveMessages(1, { maxWaitTimeInMs: 200 }))).not.toBe("no error");
    // A publish a session subscription cannot take (no session id) is refused whole.
    expect(await codeOf(client.createSender("orders").sendMessages({ body: "none" }))).not.toBe("no error");
  });

  it("refuses a sender on a subscription and a receiver on a subscription or topic that does not exist", async () => {
    const { client, engine } = await withTopic({ billing: {} });
    const toSubscription = client.createSender("orders/Subscriptions/billing");
    expect(await codeOf(toSubscription.sendMessages({ body: "x" }))).not.toBe("no error");
    expect(engine.stats("orders/subscriptions/billing").active).toBe(0);
    const missing = client.createReceiver("orders", "nobody");
    expect(await codeOf(missing.receiveMessages(1, { maxWaitTimeInMs: 200 }))).toBe(
      "MessagingEntityNotFound",
    );
    const noTopic = client.createReceiver("nothing", "billing");
    expect(await codeOf(noTopic.receiveMessages(1, { maxWaitTimeInMs: 200 }))).toBe(
      "MessagingEntityNotFound",
    );
    expect(engine.listQueues().map((queue) => queue.name)).not.toContain("orders/subscriptions/nobody");
  });
});

/** A Config.json in the official format holding these topics. */
function configWithTopics(topics: readonly unknown[]): string {
  return JSON.stringify({
    UserConfig: {
      Namespaces: [{ Name: "sbemulatorns", Queues: [], Topics: topics }],
      Logging: { Type: "File" },
    },
  });
}

describe("the Topics of an emulator Config.json", () => {
  const CONFIG = configWithTopics([
    {
      Name: "orders",
      Properties: { DefaultMessageTimeToLive: "PT1H", RequiresDuplicateDetection: false },
      Subscriptions: [
        {
          Name: "big",
          Properties: { LockDuration: "PT30S", MaxDeliveryCount: 2, RequiresSession: false },
          Rules: [
            {
              Name: "large",
              Properties: {
                FilterType: "Sql",
                SqlFilter: { SqlExpression: "amount > 100 AND sys.ContentType = 'application/json'" },
                Action: { SqlExpression: "SET sys.To = 'Entity'" },
              },
            },
          ],
        },
        {
          Name: "eu",
          Properties: { DeadLetteringOnMessageExpiration: true },
          Rules: [
            {
              Name: "region",
              Properties: {
                FilterType: "Correlation",
                CorrelationFilter: {
                  CorrelationId: "",
                  ContentType: "text/plain",
                  Properties: { region: "eu" },
                },
              },
            },
          ],
        },
        { Name: "all" },
        { Name: "Forwarded", Properties: { ForwardTo: "Archive" } },
        {
          Name: "ordered",
          Properties: { RequiresSession: true },
          Rules: [{ Name: "none", Properties: { FilterType: "Sql", SqlFilter: { SqlExpression: "1=0" } } }],
        },
      ],
    },
  ]);

  it("creates each topic with its subscriptions, their properties and rules; each subscription gets what its rule matches", async () => {
    const endpoint = await startEndpoint({ createQueues: false });
    const { engine, client } = endpoint;
    createQueue(engine, "archive");
    const config = parseEmulatorConfig(CONFIG, "Config.json");
    expect(config.topics).toEqual(["orders"]);
    expect(applyEmulatorTopics(engine, config.topicDefinitions)).toEqual({
      created: ["orders"],
      subscribed: ["orders/big", "orders/eu", "orders/all", "orders/Forwarded", "orders/ordered"],
      ruled: [],
    });
    const big = engine.getQueueRecord("orders/subscriptions/big")!;
    expect([big.lockDurationMs, big.maxDeliveryCount, big.fifo]).toEqual([30_000, 2, false]);
    expect(engine.getQueueRecord("orders/subscriptions/eu")?.deadLetterOnExpiration).toBe(true);
    expect(engine.getQueueRecord("orders/subscriptions/ordered")?.fifo).toBe(true);
    expect(engine.topics.get("orders")?.defaultTimeToLiveMs).toBe(3_600_000);
    await client.createSender("orders").sendMessages([
      { body: "large json", contentType: "application/json", applicationProperties: { amount: 150 } },
      { body: "small json", contentType: "application/json", applicationProperties: { amount: 5 } },
      { body: "eu text", contentType: "text/plain", applicationProperties: { region: "eu", amount: 500 } },
      { body: "us text", contentType: "text/plain", applicationProperties: { region: "us" } },
    ]);
    const receive = (subscription: string) => takeAll(client, subscription);
    expect(await receive("big")).toEqual(["large json"]);
    expect(await receive("eu")).toEqual(["eu text"]);
    expect(await receive("all")).toEqual(["large json", "small json", "eu text", "us text"]);
    const archive = client.createReceiver("archive", { receiveMode: "receiveAndDelete" });
    expect(bodies(await archive.receiveMessages(10, { maxWaitTimeInMs: 300 }))).toHaveLength(4);
    expect(endpoint.errors).toEqual([]);
  });

  it("applies the same file again without change, and gives an existing subscription the file's rules", async () => {
    const { engine } = await startEndpoint({ createQueues: false });
    createQueue(engine, "archive");
    const { topicDefinitions } = parseEmulatorConfig(CONFIG, "Config.json");
    applyEmulatorTopics(engine, topicDefinitions);
    expect(applyEmulatorTopics(engine, topicDefinitions)).toEqual({ created: [], subscribed: [], ruled: [] });
    engine.topics.createRule("orders", "big", "extra", { sql: "1=1" });
    expect(applyEmulatorTopics(engine, topicDefinitions)).toEqual({
      created: [],
      subscribed: [],
      ruled: ["orders/big"],
    });
    expect(engine.topics.listRules("orders", "big").map((rule) => rule.name)).toEqual(["large"]);
  });

  it("refuses a bad topic with one Configuration error naming it, and a forwarding queue that does not exist", async () => {
    const bad = (topics: unknown[]) => () => parseEmulatorConfig(configWithTopics(topics), "Config.json");
    const badRule = (properties: unknown) =>
      bad([{ Name: "t", Subscriptions: [{ Name: "s", Rules: [{ Name: "r", Properties: properties }] }] }]);
    expect(badRule({ FilterType: "Sql", SqlFilter: { SqlExpression: "a = = 1" } })).toThrow(
      /Config.json: topic "t": subscription "s": rule "r": /,
    );
    expect(
      bad([{ Name: "t", Subscriptions: [{ Name: "s", Properties: { LockDuration: "soon" } }] }]),
    ).toThrow(/topic "t": subscription "s": .*LockDuration/);
    expect(badRule({ FilterType: "Correlation", CorrelationFilter: { ReplyToSessionId: "x" } })).toThrow(
      /ReplyToSessionId is not supported/,
    );
    expect(badRule({ FilterType: "True" })).toThrow(/FilterType must be Sql or Correlation/);
    expect(bad([{ Name: "t", Properties: { LockDuration: "PT1M" } }])).toThrow(
      /topic "t": unknown property LockDuration/,
    );
    const { engine } = await startEndpoint({ createQueues: false });
    const forwarding = parseEmulatorConfig(
      configWithTopics([{ Name: "t", Subscriptions: [{ Name: "s", Properties: { ForwardTo: "nowhere" } }] }]),
      "Config.json",
    );
    expect(() => applyEmulatorTopics(engine, forwarding.topicDefinitions)).toThrow(
      /forwards to queue "nowhere"/,
    );
    expect(engine.topics.list()).toEqual([]);
  });
});
