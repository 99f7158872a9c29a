// Topics, subscriptions and rules through the administration API, judged by the real
// ServiceBusAdministrationClient (SDK 7.9.5): what it sends the server must read, what it parses
// the server must write. Messages go through the AMQP endpoint on the same engine.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServiceBusAdministrationClient } from "@azure/service-bus";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { QueueEngine } from "../../../src/engine/queue-engine.js";
import { SqliteStore } from "../../../src/engine/sqlite/sqlite-store.js";
import { ServiceBusAdminServer } from "../../../src/server/servicebus/admin/admin-server.js";
import { adminClientFor, restError } from "./admin-client.js";
import { EMULATOR_KEY, type Endpoint, startEndpoint } from "./harness.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-topic-admin-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const servers: ServiceBusAdminServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
});

interface Running extends Endpoint {
  readonly admin: ServiceBusAdministrationClient;
}

/** An AMQP endpoint and an admin server on one engine, with an admin client of the second. */
async function start(engine?: QueueEngine): Promise<Running> {
  const endpoint = await startEndpoint(engine === undefined ? {} : { engine });
  const server = await ServiceBusAdminServer.start({
    engine: endpoint.engine,
    port: 0,
    sasKey: EMULATOR_KEY,
  });
  servers.push(server);
  return { ...endpoint, admin: adminClientFor(server.endpoint, EMULATOR_KEY) };
}

async function all<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

async function bodiesOf(client: Endpoint["client"], topic: string, subscription: string): Promise<unknown[]> {
  const receiver = client.createReceiver(topic, subscription, { receiveMode: "receiveAndDelete" });
  const got = await receiver.receiveMessages(10, { maxWaitTimeInMs: 300 });
  await receiver.close();
  return got.map((message) => message.body).sort();
}

describe("serve --servicebus administration: topics", () => {
  it("creates, gets, updates, lists and deletes topics with their settings and runtime properties", async () => {
    const { admin } = await start();
    const created = await admin.createTopic("orders", {
      defaultMessageTimeToLive: "PT1H",
      maxSizeInMegabytes: 2048,
      userMetadata: "team=shop",
      supportOrdering: false,
      maxMessageSizeInKilobytes: 512,
    });
    expect(created).toMatchObject({
      name: "orders",
      defaultMessageTimeToLive: "PT1H",
      maxSizeInMegabytes: 2048,
      userMetadata: "team=shop",
      supportOrdering: false,
      requiresDuplicateDetection: false,
      status: "Active",
      availabilityStatus: "Available",
      maxMessageSizeInKilobytes: 512,
    });
    expect(await admin.topicExists("orders")).toBe(true);
    expect(await admin.topicExists("ORDERS")).toBe(true);
    expect(await admin.topicExists("missing")).toBe(false);
    const fetched = await admin.getTopic("orders");
    const updated = await admin.updateTopic({
      ...fetched,
      defaultMessageTimeToLive: "PT2H",
      userMetadata: "v2",
    });
    expect(updated).toMatchObject({
      defaultMessageTimeToLive: "PT2H",
      userMetadata: "v2",
      supportOrdering: false,
    });
    await admin.createTopic("events");
    await admin.createTopic("audit");
    expect((await all(admin.listTopics())).map((topic) => topic.name)).toEqual(["audit", "events", "orders"]);
    const pages = await all(admin.listTopics().byPage({ maxPageSize: 2 }));
    expect(pages.map((page) => page.map((topic) => topic.name))).toEqual([["audit", "events"], ["orders"]]);
    await admin.createSubscription("orders", "billing");
    const runtime = await admin.getTopicRuntimeProperties("orders");
    expect(runtime).toMatchObject({ name: "orders", subscriptionCount: 1, scheduledMessageCount: 0 });
    expect(runtime.createdAt).toBeInstanceOf(Date);
    const runtimes = await all(admin.listTopicsRuntimeProperties());
    expect(runtimes.map((one) => [one.name, one.subscriptionCount])).toEqual([
      ["audit", 0],
      ["events", 0],
      ["orders", 1],
    ]);
    await admin.deleteTopic("orders");
    expect(await admin.topicExists("orders")).toBe(false);
    expect(await admin.subscriptionExists("orders", "billing")).toBe(false);
  });

  it("refuses a topic named as an existing topic or queue, and a queue named as a topic (409)", async () => {
    const { admin } = await start();
    await admin.createTopic("orders");
    await admin.createQueue("work");
    for (const call of [
      () => admin.createTopic("orders"),
      () => admin.createTopic("Orders"),
      () => admin.createTopic("work"),
      () => admin.createQueue("orders"),
    ]) {
      const error = await restError(call);
      expect(error.statusCode).toBe(409);
      expect(error.code).toBe("MessageEntityAlreadyExistsError");
    }
    expect((await all(admin.listQueues())).map((queue) => queue.name)).toEqual(["work"]);
  });

  it("answers a missing topic with 404 on get, update, delete and its subscriptions", async () => {
    const { admin } = await start();
    await admin.createTopic("orders");
    const orders = await admin.getTopic("orders");
    for (const call of [
      () => admin.getTopic("missing"),
      () => admin.getTopicRuntimeProperties("missing"),
      () => admin.updateTopic({ ...orders, name: "missing" }),
      () => admin.deleteTopic("missing"),
      () => admin.createSubscription("missing", "billing"),
      () => admin.listSubscriptions("missing").byPage().next(),
    ]) {
      const error = await restError(call);
      expect(error.statusCode).toBe(404);
      expect(error.code).toBe("MessageEntityNotFoundError");
    }
  });

  it("keeps duplicate detection, which cannot be changed, and applies its window to each subscription", async () => {
    const { admin, client } = await start();
    const topic = await admin.createTopic("orders", {
      requiresDuplicateDetection: true,
      duplicateDetectionHistoryTimeWindow: "PT5M",
    });
    await admin.createSubscription("orders", "billing");
    const error = await restError(() => admin.updateTopic({ ...topic, requiresDuplicateDetection: false }));
    expect(error.statusCode).toBe(400);
    expect(error.message).toContain("RequiresDuplicateDetection");
    await client.createSender("orders").sendMessages([
      { body: "once", messageId: "m1" },
      { body: "again", messageId: "m1" },
    ]);
    expect(await bodiesOf(client, "orders", "billing")).toEqual(["once"]);
  });
});

describe("serve --servicebus administration: subscriptions", () => {
  it("creates, gets, updates, lists and deletes subscriptions, with their message counts", async () => {
    const { admin, client } = await start();
    await admin.createTopic("orders");
    const created = await admin.createSubscription("orders", "billing", {
      lockDuration: "PT30S",
      maxDeliveryCount: 3,
      defaultMessageTimeToLive: "PT10M",
      deadLetteringOnMessageExpiration: true,
      userMetadata: "billing team",
    });
    expect(created).toMatchObject({
      topicName: "orders",
      subscriptionName: "billing",
      lockDuration: "PT30S",
      maxDeliveryCount: 3,
      requiresSession: false,
      defaultMessageTimeToLive: "PT10M",
      deadLetteringOnMessageExpiration: true,
      deadLetteringOnFilterEvaluationExceptions: true,
      enableBatchedOperations: true,
      userMetadata: "billing team",
      status: "Active",
      availabilityStatus: "Available",
    });
    await admin.createSubscription("orders", "audit");
    expect(await admin.subscriptionExists("orders", "billing")).toBe(true);
    expect(await admin.subscriptionExists("orders", "BILLING")).toBe(true);
    expect(await admin.subscriptionExists("orders", "missing")).toBe(false);
    const updated = await admin.updateSubscription({ ...created, maxDeliveryCount: 7, lockDuration: "PT1M" });
    expect(updated).toMatchObject({
      maxDeliveryCount: 7,
      lockDuration: "PT1M",
      userMetadata: "billing team",
    });
    expect((await admin.getSubscription("orders", "billing")).maxDeliveryCount).toBe(7);
    const names = (await all(admin.listSubscriptions("orders"))).map((one) => one.subscriptionName);
    expect(names).toEqual(["audit", "billing"]);

    const sender = client.createSender("orders");
    await sender.sendMessages([{ body: "one" }, { body: "two" }, { body: "three", sessionId: "s" }]);
    await sender.sendMessages({ body: "later", scheduledEnqueueTimeUtc: new Date(Date.now() + 60_000) });
    const receiver = client.createReceiver("orders", "billing");
    const [first] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 1_000 });
    await receiver.deadLetterMessage(first!);
    const counts = await admin.getSubscriptionRuntimeProperties("orders", "billing");
    expect(counts).toMatchObject({
      topicName: "orders",
      subscriptionName: "billing",
      activeMessageCount: 2,
      deadLetterMessageCount: 1,
      transferMessageCount: 0,
      transferDeadLetterMessageCount: 0,
      totalMessageCount: 4,
    });
    const listed = await all(admin.listSubscriptionsRuntimeProperties("orders"));
    expect(listed.map((one) => [one.subscriptionName, one.activeMessageCount])).toEqual([
      ["audit", 3],
      ["billing", 2],
    ]);
    await receiver.close();
    await admin.deleteSubscription("orders", "billing");
    expect(await admin.subscriptionExists("orders", "billing")).toBe(false);
    await sender.sendMessages({ body: "after" });
    expect((await admin.getSubscriptionRuntimeProperties("orders", "audit")).activeMessageCount).toBe(4);
  });

  it("refuses a duplicate (409), a missing one (404), a bad name, and a change of RequiresSession (400)", async () => {
    const { admin } = await start();
    await admin.createTopic("orders");
    const billing = await admin.createSubscription("orders", "billing");
    const conflict = await restError(() => admin.createSubscription("orders", "Billing"));
    expect(conflict.statusCode).toBe(409);
    expect(conflict.code).toBe("MessageEntityAlreadyExistsError");
    for (const call of [
      () => admin.getSubscription("orders", "missing"),
      () => admin.getSubscriptionRuntimeProperties("orders", "missing"),
      () => admin.updateSubscription({ ...billing, subscriptionName: "missing" }),
      () => admin.deleteSubscription("orders", "missing"),
      () => admin.createSubscription("orders", "forwarding", { forwardTo: "nowhere" }),
    ])
      expect((await restError(call)).statusCode).toBe(404);
    const session = await restError(() => admin.updateSubscription({ ...billing, requiresSession: true }));
    expect(session.statusCode).toBe(400);
    expect(session.message).toContain("RequiresSession");
    expect((await restError(() => admin.createSubscription("orders", "-bad-"))).statusCode).toBe(400);
  });

  it("forwards a subscription's copies to a queue, and stops when the forwarding is removed", async () => {
    const { admin, client } = await start();
    await admin.createQueue("inbox");
    await admin.createTopic("orders");
    const forwarding = await admin.createSubscription("orders", "to-inbox", { forwardTo: "inbox" });
    expect(forwarding.forwardTo).toMatch(/\/inbox$/);
    await client.createSender("orders").sendMessages({ body: "forwarded" });
    const inbox = client.createReceiver("inbox", { receiveMode: "receiveAndDelete" });
    expect((await inbox.receiveMessages(1, { maxWaitTimeInMs: 1_000 }))[0]?.body).toBe("forwarded");
    await admin.updateSubscription({ ...forwarding, forwardTo: undefined });
    await client.createSender("orders").sendMessages({ body: "kept" });
    expect(await bodiesOf(client, "orders", "to-inbox")).toEqual(["kept"]);
  });
});

describe("serve --servicebus administration: rules", () => {
  it("creates, gets, updates, lists and deletes SQL and correlation rules, and publishing follows them", async () => {
    const { admin, client } = await start();
    await admin.createTopic("orders");
    await admin.createSubscription("orders", "eu", {
      defaultRuleOptions: { name: "eu-only", filter: { sqlExpression: "region = 'eu'" } },
    });
    await admin.createSubscription("orders", "json");
    expect((await all(admin.listRules("orders", "json"))).map((rule) => rule.name)).toEqual(["$Default"]);
    expect((await admin.getRule("orders", "json", "$Default")).filter).toEqual({
      sqlExpression: "1=1",
      sqlParameters: undefined,
    });
    await admin.deleteRule("orders", "json", "$Default");
    const correlation = await admin.createRule("orders", "json", "typed", {
      contentType: "application/json",
      subject: "order",
      applicationProperties: { priority: 2, urgent: true, tier: "gold" },
    });
    expect(correlation).toMatchObject({
      name: "typed",
      filter: {
        contentType: "application/json",
        subject: "order",
        applicationProperties: { priority: 2, urgent: true, tier: "gold" },
      },
      action: { sqlExpression: undefined },
    });
    expect(await admin.ruleExists("orders", "json", "typed")).toBe(true);
    expect(await admin.ruleExists("orders", "json", "$Default")).toBe(false);
    expect((await admin.getRule("orders", "eu", "eu-only")).filter).toMatchObject({
      sqlExpression: "region = 'eu'",
    });

    const sender = client.createSender("orders");
    await sender.sendMessages([
      { body: "eu", applicationProperties: { region: "eu" } },
      {
        body: "typed",
        contentType: "application/json",
        subject: "order",
        applicationProperties: { priority: 2, urgent: true, tier: "gold" },
      },
      { body: "untyped", contentType: "application/json", subject: "order" },
    ]);
    expect(await bodiesOf(client, "orders", "eu")).toEqual(["eu"]);
    expect(await bodiesOf(client, "orders", "json")).toEqual(["typed"]);

    const rule = await admin.getRule("orders", "eu", "eu-only");
    const updated = await admin.updateRule("orders", "eu", {
      ...rule,
      filter: { sqlExpression: "region IN ('eu', 'uk')" },
    });
    expect(updated.filter).toMatchObject({ sqlExpression: "region IN ('eu', 'uk')" });
    await admin.createRule("orders", "eu", "b-any-priority", { sqlExpression: "EXISTS(priority)" });
    expect((await all(admin.listRules("orders", "eu"))).map((one) => one.name)).toEqual([
      "b-any-priority",
      "eu-only",
    ]);
    await sender.sendMessages([
      { body: "uk", applicationProperties: { region: "uk" } },
      { body: "prioritised", applicationProperties: { priority: 1 } },
      { body: "us", applicationProperties: { region: "us" } },
    ]);
    expect(await bodiesOf(client, "orders", "eu")).toEqual(["prioritised", "uk"]);
    await admin.deleteRule("orders", "eu", "b-any-priority");
    await admin.deleteRule("orders", "eu", "eu-only");
    await sender.sendMessages({ body: "none", applicationProperties: { region: "eu" } });
    expect(await bodiesOf(client, "orders", "eu")).toEqual([]);
  });

  it("refuses a duplicate rule (409), a missing one (404), bad SQL naming its position and an action (400)", async () => {
    const { admin } = await start();
    await admin.createTopic("orders");
    await admin.createSubscription("orders", "billing");
    const defaultRule = await admin.getRule("orders", "billing", "$Default");
    const duplicate = await restError(() =>
      admin.createRule("orders", "billing", "$Default", { sqlExpression: "1=1" }),
    );
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.code).toBe("MessageEntityAlreadyExistsError");
    for (const call of [
      () => admin.getRule("orders", "billing", "missing"),
      () => admin.deleteRule("orders", "billing", "missing"),
      () => admin.updateRule("orders", "billing", { ...defaultRule, name: "missing" }),
      () => admin.createRule("orders", "missing", "r", { sqlExpression: "1=1" }),
      () => admin.createRule("missing", "billing", "r", { sqlExpression: "1=1" }),
      () => admin.listRules("orders", "missing").byPage().next(),
    ]) {
      const error = await restError(call);
      expect(error.statusCode).toBe(404);
      expect(error.code).toBe("MessageEntityNotFoundError");
    }
    const sql = await restError(() =>
      admin.createRule("orders", "billing", "bad", { sqlExpression: "region = 'eu' AND" }),
    );
    expect(sql.statusCode).toBe(400);
    expect(sql.message).toContain("column 18");
    const action = await restError(() =>
      admin.createRule("orders", "billing", "act", { sqlExpression: "1=1" }, { sqlExpression: "SET a = 1" }),
    );
    expect(action.statusCode).toBe(400);
    expect(action.message).toContain("rule actions");
    const parameters = await restError(() =>
      admin.createRule("orders", "billing", "p", { sqlExpression: "a = @a", sqlParameters: { "@a": 1 } }),
    );
    expect(parameters.statusCode).toBe(400);
    expect(parameters.message).toContain("parameters");
    expect((await all(admin.listRules("orders", "billing"))).map((rule) => rule.name)).toEqual(["$Default"]);
  });
});

describe("serve --servicebus administration on --db", () => {
  it("keeps topics, subscriptions, their settings and rules across a restart", async () => {
    const path = join(directory, "restart.db");
    const first = new QueueEngine(new SqliteStore(path), { createQueues: false });
    const before = await start(first);
    await before.admin.createTopic("orders", { userMetadata: "kept", defaultMessageTimeToLive: "PT1H" });
    await before.admin.createSubscription("orders", "billing", { maxDeliveryCount: 4, userMetadata: "sub" });
    await before.admin.createRule("orders", "billing", "eu", { sqlExpression: "region = 'eu'" });
    await before.admin.createRule("orders", "billing", "typed", { applicationProperties: { n: 1 } });
    await before.client.createSender("orders").sendMessages({ body: "waiting" });
    await before.client.close();
    await before.server.close();
    await servers.splice(0)[0]!.close();
    await first.close();

    const second = new QueueEngine(new SqliteStore(path), { createQueues: false });
    const after = await start(second);
    expect(await after.admin.getTopic("orders")).toMatchObject({
      userMetadata: "kept",
      defaultMessageTimeToLive: "PT1H",
    });
    expect(await after.admin.getSubscription("orders", "billing")).toMatchObject({
      maxDeliveryCount: 4,
      userMetadata: "sub",
    });
    const rules = await all(after.admin.listRules("orders", "billing"));
    expect(rules.map((rule) => [rule.name, rule.filter])).toEqual([
      ["$Default", { sqlExpression: "1=1", sqlParameters: undefined }],
      ["eu", { sqlExpression: "region = 'eu'", sqlParameters: undefined }],
      ["typed", expect.objectContaining({ applicationProperties: { n: 1 } })],
    ]);
    expect((await after.admin.getSubscriptionRuntimeProperties("orders", "billing")).activeMessageCount).toBe(
      1,
    );
    await after.client.close();
    await after.server.close();
    await second.close();
  });
});
