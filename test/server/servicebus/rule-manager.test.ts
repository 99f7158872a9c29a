// A subscription's rules through its `$management` node, as the real ServiceBusRuleManager
// (SDK 7.9.5) sends add-rule, remove-rule and enumerate-rules and reads their answers.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RuleProperties, ServiceBusClient } from "@azure/service-bus";
import { afterAll, describe, expect, it } from "vitest";
import { QueueEngine } from "../../../src/engine/queue-engine.js";
import { SqliteStore } from "../../../src/engine/sqlite/sqlite-store.js";
import { MAX_MESSAGE_BYTES } from "../../../src/server/servicebus/servicebus-server.js";
import { codeOf, type Endpoint, startEndpoint } from "./harness.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-rule-manager-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** An endpoint with topic `orders` and its subscription `billing` (made unless the engine has them). */
async function withTopic(engine?: QueueEngine): Promise<Endpoint> {
  const endpoint = await startEndpoint(engine === undefined ? {} : { engine });
  if (endpoint.engine.topics.get("orders") === undefined) {
    endpoint.engine.topics.create("orders", {}, MAX_MESSAGE_BYTES);
    endpoint.engine.topics.subscribe("orders", "billing", {});
  }
  return endpoint;
}

async function rulesOf(client: ServiceBusClient, subscription = "billing"): Promise<RuleProperties[]> {
  const rules: RuleProperties[] = [];
  // SDK 7.9.5 yields one `undefined` for a subscription without rules (its pager's first page is
  // "none"), whatever the service answers: left out here.
  for await (const rule of client.createRuleManager("orders", subscription).listRules())
    if (rule !== undefined) rules.push(rule);
  return rules;
}

async function bodiesOf(client: ServiceBusClient): Promise<unknown[]> {
  const receiver = client.createReceiver("orders", "billing", { receiveMode: "receiveAndDelete" });
  const got = await receiver.receiveMessages(10, { maxWaitTimeInMs: 300 });
  await receiver.close();
  return got.map((message) => message.body).sort();
}

describe("serve --servicebus: a subscription's rules through ServiceBusRuleManager", () => {
  it("adds, lists and removes SQL and correlation rules, and publishing follows them", async () => {
    const { client, errors } = await withTopic();
    const manager = client.createRuleManager("orders", "billing");
    expect(await rulesOf(client)).toEqual([
      { name: "$Default", filter: { sqlExpression: "1=1" }, action: {} },
    ]);
    await manager.deleteRule("$Default");
    await manager.createRule("eu", { sqlExpression: "region = 'eu'" });
    await manager.createRule("typed", {
      contentType: "application/json",
      subject: "order",
      applicationProperties: { priority: 2, urgent: true, tier: "gold" },
    });
    const rules = await rulesOf(client);
    expect(rules.map((rule) => rule.name)).toEqual(["eu", "typed"]);
    expect(rules[0]).toEqual({ name: "eu", filter: { sqlExpression: "region = 'eu'" }, action: {} });
    expect(rules[1]!.filter).toMatchObject({
      contentType: "application/json",
      subject: "order",
      applicationProperties: { priority: 2, urgent: true, tier: "gold" },
    });
    await client.createSender("orders").sendMessages([
      { body: "eu", applicationProperties: { region: "eu" } },
      { body: "us", applicationProperties: { region: "us" } },
      {
        body: "typed",
        contentType: "application/json",
        subject: "order",
        applicationProperties: { priority: 2, urgent: true, tier: "gold" },
      },
    ]);
    expect(await bodiesOf(client)).toEqual(["eu", "typed"]);
    await manager.deleteRule("eu");
    await manager.deleteRule("typed");
    expect(await rulesOf(client)).toEqual([]);
    await client
      .createSender("orders")
      .sendMessages({ body: "none", applicationProperties: { region: "eu" } });
    expect(await bodiesOf(client)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("pages through many rules", async () => {
    const { client } = await withTopic();
    const manager = client.createRuleManager("orders", "billing");
    for (let i = 0; i < 12; i++)
      await manager.createRule(`r${String(i).padStart(2, "0")}`, { sqlExpression: `n = ${i}` });
    const pages: string[][] = [];
    for await (const page of manager.listRules().byPage({ maxPageSize: 5 }))
      pages.push(page.map((rule) => rule.name));
    expect(pages.map((page) => page.length)).toEqual([5, 5, 3]);
    expect(pages.flat()).toContain("$Default");
  });

  it("refuses a duplicate, a missing rule, bad SQL naming its position, an action, and a missing subscription", async () => {
    const { client } = await withTopic();
    const manager = client.createRuleManager("orders", "billing");
    expect(await codeOf(manager.createRule("$Default", { sqlExpression: "1=1" }))).toBe(
      "MessagingEntityAlreadyExists",
    );
    expect(await codeOf(manager.deleteRule("missing"))).toBe("MessagingEntityNotFound");
    const sql = manager.createRule("bad", { sqlExpression: "region = 'eu' AND" });
    await expect(sql).rejects.toThrow(/column 18/);
    await expect(
      manager.createRule("act", { sqlExpression: "1=1" }, { sqlExpression: "SET a = 1" }),
    ).rejects.toThrow(/rule actions/);
    expect(await codeOf(rulesOf(client, "missing"))).toBe("MessagingEntityNotFound");
    expect((await rulesOf(client)).map((rule) => rule.name)).toEqual(["$Default"]);
  });

  it("keeps rules added through the rule manager across a restart on --db", async () => {
    const path = join(directory, "rules.db");
    const first = new QueueEngine(new SqliteStore(path), { createQueues: false });
    const before = await withTopic(first);
    await before.client
      .createRuleManager("orders", "billing")
      .createRule("eu", { sqlExpression: "region = 'eu'" });
    await before.client.close();
    await before.server.close();
    await first.close();
    const second = new QueueEngine(new SqliteStore(path), { createQueues: false });
    const after = await withTopic(second);
    expect((await rulesOf(after.client)).map((rule) => rule.name)).toEqual(["$Default", "eu"]);
    await after.client.close();
    await after.server.close();
    await second.close();
  });
});
