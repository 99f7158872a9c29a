import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import { describe, expect, it } from "vitest";
import type { SubscriptionOptions } from "../../../src/core/topics.js";
import { MAX_MESSAGE_BYTES } from "../../../src/server/servicebus/servicebus-server.js";
import { codeOf, type Endpoint, startEndpoint } from "./harness.js";

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
    const receive = async (subscription: string) => {
      const receiver = client.createReceiver("orders", subscription, { receiveMode: "receiveAndDelete" });
      const got = await receiver.receiveMessages(10, { maxWaitTimeInMs: 300 });
      await receiver.close();
      return bodies(got);
    };
    expect(await receive("billing")).toEqual(["one", "two", "three"]);
    expect(await receive("eu")).toEqual(["one"]);
    expect(await receive("audit")).toEqual(["two"]);
    expect(engine.topics.get("orders")?.published).toBe(3);
    // No queue was made of the topic's name.
    expect(engine.getQueueRecord("orders")).toBeUndefined();
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
