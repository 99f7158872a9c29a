import amqp from "amqplib";
import { afterAll, describe, expect, test } from "vitest";
import type { QueueClient } from "../../../src/core/queue-client.js";
import { createClient, subscriptionPath } from "../../../src/index.js";
import { expectCode } from "../../../src/testing/contract/harness.js";
import { cleanPrefix, RABBITMQ_URL, uniquePrefix } from "./broker.js";

// What the contract's topic cases (C80-C99) do not reach: what RabbitMQ's exchanges carry and what they cannot.
const prefix = uniquePrefix("topics");
const clients: QueueClient[] = [];
afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await cleanPrefix(prefix);
}, 60_000);

/** A client of this file's prefix on a connection of its own, closed after the file. */
async function client(): Promise<QueueClient> {
  const made = await createClient({
    provider: { type: "rabbitmq", url: RABBITMQ_URL, queuePrefix: prefix },
    createQueues: false,
  });
  clients.push(made);
  return made;
}

/** Whether the broker has an exchange of that name (a passive declare, on a connection of its own). */
async function exchangeExists(name: string): Promise<boolean> {
  const connection = await amqp.connect(RABBITMQ_URL);
  try {
    const channel = await connection.createChannel();
    channel.on("error", () => undefined);
    await channel.checkExchange(name);
    return true;
  } catch {
    return false;
  } finally {
    await connection.close().catch(() => undefined);
  }
}

describe("rabbitmq topics", () => {
  test("a SQL or policy rule is Unsupported naming it; the default rule's 1=1 is taken", async () => {
    const admin = (await client()).admin;
    await admin.createTopic("refusals");
    await admin.createSubscription("refusals", "plain", { rules: [] });
    const sql = await expectCode(
      admin.createRule("refusals", "plain", "eu", { sql: "region = 'eu'" }),
      "Unsupported",
    );
    expect(sql.message).toContain('"eu"');
    expect(sql.message).toContain("sql filters");
    const policy = await expectCode(
      admin.createSubscription("refusals", "policed", {
        rules: [{ name: "by-policy", filter: { policy: { region: ["eu"] } } }],
      }),
      "Unsupported",
    );
    expect(policy.message).toContain("by-policy");
    expect(await admin.getSubscription("refusals", "policed")).toBeNull();
    await admin.createRule("refusals", "plain", "everything", { sql: "1=1" });
    expect(await admin.listRules("refusals", "plain")).toEqual([
      { name: "everything", filter: { sql: "1=1" } },
    ]);
  });

  test("the broker routes by bindings: another client's subscription gets this client's next publish; attribute names match ignoring case, a long one too", async () => {
    const [publisher, subscriber] = [await client(), await client()];
    // Longer than a header key may be with its prefix: matched by its hash.
    const longName = "x".repeat(256);
    await publisher.admin.createTopic("routed");
    await publisher.publishMessage("routed", "before");
    await subscriber.admin.createSubscription("routed", "eu", {
      rules: [
        { name: "eu", filter: { correlation: { attributes: { Region: "eu", amount: 5 } } } },
        { name: "long", filter: { correlation: { attributes: { [longName]: "yes" } } } },
      ],
    });
    await publisher.publishMessages("routed", [
      { body: "eu-5", attributes: { REGION: "eu", amount: "5" } },
      { body: "eu-6", attributes: { region: "eu", amount: "6" } },
      { body: "long", attributes: { [longName.toUpperCase()]: "yes" } },
    ]);
    const path = subscriptionPath("routed", "eu");
    const received = await subscriber.receiveMessages(path, 10, 2_000);
    const more = await subscriber.receiveMessages(path, 10);
    expect([...received, ...more].map((message) => message.text()).sort()).toEqual(["eu-5", "long"]);
    // The publisher writes its counts to the catalog within half a second; its own stats first.
    expect(await publisher.admin.getTopicStats("routed")).toEqual({ subscriptions: 1, published: 4 });
    await publisher.publishMessage("routed", "counted later");
    await expect
      .poll(() => subscriber.admin.getTopicStats("routed"), { timeout: 5_000 })
      .toEqual({ subscriptions: 1, published: 5 });
  });

  test("a delayed publish is Unsupported; a subscription's defaultTimeToLiveMs ends its copies as they are received", async () => {
    const admin = (await client()).admin;
    const publisher = await client();
    await admin.createTopic("timed");
    const path = subscriptionPath("timed", "short");
    await admin.createSubscription("timed", "short", { defaultTimeToLiveMs: 1 });
    await expectCode(publisher.publishMessage("timed", { body: "later", delayMs: 1_000 }), "Unsupported");
    await publisher.publishMessages("timed", ["expires", { body: "kept", timeToLiveMs: 60_000 }]);
    const received = await publisher.receiveMessages(path, 10, 2_000);
    const more = await publisher.receiveMessages(path, 10);
    expect([...received, ...more].map((message) => message.text())).toEqual(["kept"]);
  });

  test("deleteTopic removes its exchanges; a publish after another client deleted the topic is QueueNotFound naming it", async () => {
    const [publisher, deleter] = [await client(), await client()];
    await publisher.admin.createTopic("gone");
    await publisher.admin.createSubscription("gone", "sub");
    await publisher.publishMessage("gone", "kept until deleted");
    expect(await exchangeExists(`${prefix}gone~topic`)).toBe(true);
    await deleter.admin.deleteTopic("gone");
    expect(await exchangeExists(`${prefix}gone~topic`)).toBe(false);
    expect(await exchangeExists(`${prefix}${subscriptionPath("gone", "sub")}~subscription`)).toBe(false);
    const error = await expectCode(publisher.publishMessage("gone", "lost"), "QueueNotFound");
    expect(error.message).toContain("gone");
  });
});
