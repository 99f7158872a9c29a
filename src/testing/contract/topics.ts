import { expect, type TestContext } from "vitest";
import type { Message, ReceivedMessage } from "../../core/message.js";
import type { QueueClient } from "../../core/queue-client.js";
import {
  type FilterKind,
  type SubscriptionFilter,
  type SubscriptionOptions,
  subscriptionPath,
} from "../../core/topics.js";
import { expectCode, type Harness } from "./harness.js";
import { contractCase, type Suite } from "./suite.js";

/** Every kind of filter, to find the ones a provider does not evaluate. */
const FILTER_KINDS: readonly FilterKind[] = ["correlation", "sql", "policy"];

/** A filter of each kind, for the cases of the kinds a provider refuses. */
const SAMPLE_FILTERS: Readonly<Record<FilterKind, SubscriptionFilter>> = {
  correlation: { correlation: { correlationId: "c1" } },
  sql: { sql: "region = 'eu'" },
  policy: { policy: { region: ["eu"] } },
};

/** The name and filter of the rule a subscription created without rules has. */
const DEFAULT_RULE = { name: "$Default", filter: { sql: "1=1" } } as const;

/** A client of the provider under test, or the case ends skipped where it has no topics. */
async function topicClient(suite: Suite, h: Harness, context: TestContext, id: string): Promise<QueueClient> {
  const client = await h.client();
  suite.requires(context, id, client.capabilities.topics, "topics");
  return client;
}

/** Creates a uniquely named topic (ending in `.fifo` for sessions, as a session queue's name does). */
async function newTopic(h: Harness, client: QueueClient, sessions = false): Promise<string> {
  const topic = h.queueName(sessions);
  await client.admin.createTopic(topic);
  return topic;
}

/** Creates subscription `name` of `topic` with the suite's lock duration; resolves its path. */
async function subscribe(
  h: Harness,
  client: QueueClient,
  topic: string,
  name: string,
  options: SubscriptionOptions = {},
): Promise<string> {
  await client.admin.createSubscription(topic, name, {
    lockDurationMs: h.options.lockDurationMs,
    ...options,
  });
  return subscriptionPath(topic, name);
}

/**
 * How long a receive that expects a message waits: nothing on virtual time (a publish has stored
 * its copies when it resolves, and a wait there would need the clock moved), a while on real time.
 */
function waitMs(h: Harness): number {
  return h.clock ? 0 : 2_000;
}

/** Receives `count` messages of `queue` (fewer when it runs dry), settling none. */
async function receiveCount(
  h: Harness,
  client: QueueClient,
  queue: string,
  count: number,
): Promise<ReceivedMessage[]> {
  const received: ReceivedMessage[] = [];
  while (received.length < count) {
    const batch = await client.receiveMessages(queue, Math.min(10, count - received.length), waitMs(h));
    if (batch.length === 0) break;
    received.push(...batch);
  }
  return received;
}

/** Receives and completes `count` messages of `queue`, then expects no more; resolves their bodies, sorted. */
async function drainBodies(h: Harness, client: QueueClient, queue: string, count: number): Promise<string[]> {
  const received = await receiveCount(h, client, queue, count);
  for (const message of received) await client.completeMessage(message.receiptHandle);
  expect(await client.receiveMessage(queue)).toBeNull();
  return received.map((message) => message.text()).sort();
}

/** Every message `queue` holds, in any state (its dead letters apart). */
async function held(client: QueueClient, queue: string): Promise<number> {
  const stats = await client.admin.getQueueStats(queue);
  return stats.active + stats.inFlight + stats.delayed;
}

/** The names of a subscription's rules, as listRules gives them. */
async function ruleNames(client: QueueClient, topic: string, subscription: string): Promise<string[]> {
  return (await client.admin.listRules(topic, subscription)).map((rule) => rule.name);
}

/** The counts of a queue that holds nothing. */
const EMPTY_STATS = { active: 0, inFlight: 0, delayed: 0, deadLettered: 0 };

/**
 * A filter of a kind the provider evaluates that matches a message whose attribute `name` is
 * `value`, or `undefined` where it evaluates none.
 */
function equalityFilter(client: QueueClient, name: string, value: string): SubscriptionFilter | undefined {
  const { filters } = client.capabilities;
  if (filters.includes("sql")) return { sql: `${name} = '${value}'` };
  if (filters.includes("correlation")) return { correlation: { attributes: { [name]: value } } };
  if (filters.includes("policy")) return { policy: { [name]: [value] } };
  return undefined;
}

/** Publishes `messages` to `topic`, then drains each subscription and expects the bodies `expected` names for it. */
async function expectRouting(
  h: Harness,
  client: QueueClient,
  topic: string,
  messages: readonly Message[],
  expected: Readonly<Record<string, readonly string[]>>,
): Promise<void> {
  await client.publishMessages(topic, messages);
  const routed: Record<string, string[]> = {};
  for (const [subscription, bodies] of Object.entries(expected))
    routed[subscription] = await drainBodies(h, client, subscriptionPath(topic, subscription), bodies.length);
  const sorted = Object.fromEntries(
    Object.entries(expected).map(([name, bodies]) => [name, [...bodies].sort()]),
  );
  expect(routed).toEqual(sorted);
}

/** C80–C99: topics, their subscriptions and rules, skipped where the provider has no topics. */
export function topicCases(suite: Suite): void {
  contractCase(
    suite,
    "C80 topics and subscriptions are created once, listed sorted, and null when missing",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C80");
      const base = h.queueName();
      const [zulu, alpha, mike] = [`${base}-z`, `${base}-a`, `${base}-m`];
      const info = await client.admin.createTopic(zulu);
      expect(info.name).toBe(zulu);
      expect(info.createdAt).toBeInstanceOf(Date);
      expect(info.maxMessageBytes).toBeGreaterThan(0);
      expect(await client.admin.getTopic(zulu)).toMatchObject({ name: zulu });
      await expectCode(client.admin.createTopic(zulu), "QueueAlreadyExists");
      await client.admin.createTopic(alpha);
      await client.admin.createTopic(mike);
      expect(await client.admin.listTopics(base)).toEqual([alpha, mike, zulu]);
      expect(await client.admin.getTopic(`${base}-missing`)).toBeNull();

      const subscription = await client.admin.createSubscription(zulu, "zeta", {
        lockDurationMs: h.options.lockDurationMs,
      });
      expect(subscription).toMatchObject({
        topic: zulu,
        subscription: "zeta",
        forwardTo: null,
        lockDurationMs: h.options.lockDurationMs,
      });
      await subscribe(h, client, zulu, "alpha");
      await subscribe(h, client, zulu, "mid");
      await expectCode(client.admin.createSubscription(zulu, "zeta"), "QueueAlreadyExists");
      await expectCode(client.admin.createSubscription(`${base}-missing`, "zeta"), "QueueNotFound");
      expect(await client.admin.listSubscriptions(zulu)).toEqual(["alpha", "mid", "zeta"]);
      expect(await client.admin.listSubscriptions(alpha)).toEqual([]);
      expect(await client.admin.getSubscription(zulu, "zeta")).toMatchObject({
        topic: zulu,
        subscription: "zeta",
        forwardTo: null,
      });
      expect(await client.admin.getSubscription(zulu, "missing")).toBeNull();
      expect(await client.admin.getSubscription(alpha, "zeta")).toBeNull();
    },
  );

  contractCase(
    suite,
    "C81 a subscription created without rules has one, $Default, matching every message",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C81");
      const topic = await newTopic(h, client);
      const path = await subscribe(h, client, topic, "everything");
      const rules = await client.admin.listRules(topic, "everything");
      expect(rules.map((rule) => rule.name)).toEqual([DEFAULT_RULE.name]);
      if (client.capabilities.filters.includes("sql")) expect(rules[0]?.filter).toEqual(DEFAULT_RULE.filter);
      await client.publishMessages(topic, [
        "plain",
        { body: "with attributes", attributes: { region: "eu", amount: "5" } },
        { body: "with properties", correlationId: "c1", contentType: "text/plain", sessionId: "s1" },
        { body: new Uint8Array(0) },
      ]);
      expect(await drainBodies(h, client, path, 4)).toEqual(
        ["", "plain", "with attributes", "with properties"].sort(),
      );
    },
  );

  contractCase(
    suite,
    "C82 a publish copies each message to every subscription, with its id and properties, each copy locked and counted on its own",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C82");
      const topic = await newTopic(h, client);
      const paths = [
        await subscribe(h, client, topic, "a"),
        await subscribe(h, client, topic, "b"),
        await subscribe(h, client, topic, "c"),
      ];
      const [a, b, c] = paths as [string, string, string];
      const full = {
        body: Uint8Array.from([0xff, 0x00, 0x61]),
        messageId: "fan-out-1",
        attributes: { region: "eu", trace: "0af7" },
        correlationId: "order-42",
        contentType: "application/octet-stream",
        sessionId: "customer-7",
      };
      const ids = await client.publishMessages(topic, [
        full,
        "second",
        { body: "third", correlationId: "c3" },
      ]);
      expect(ids).toHaveLength(3);
      expect(ids[0]).toBe("fan-out-1");
      expect(new Set(ids).size).toBe(3);
      for (const id of ids) expect(id.length).toBeGreaterThan(0);

      const copies = new Map<string, ReceivedMessage[]>();
      for (const path of paths) {
        const received = await receiveCount(h, client, path, 3);
        expect(received.map((message) => message.messageId).sort()).toEqual([...ids].sort());
        for (const message of received) expect(message.deliveryCount).toBe(1);
        const copy = received.find((message) => message.messageId === "fan-out-1");
        expect([...copy!.body]).toEqual([0xff, 0x00, 0x61]);
        expect(copy?.attributes).toMatchObject(full.attributes);
        expect(copy?.correlationId).toBe("order-42");
        expect(copy?.contentType).toBe("application/octet-stream");
        expect(copy?.sessionId).toBe("customer-7");
        const third = received.find((message) => message.messageId === ids[2]);
        expect(third?.text()).toBe("third");
        expect(third?.correlationId).toBe("c3");
        copies.set(path, received);
      }

      // Completing one subscription's copies leaves the others'; abandoning another's counts there only.
      for (const message of copies.get(a)!) await client.completeMessage(message.receiptHandle);
      expect(await held(client, a)).toBe(0);
      for (const message of copies.get(b)!) await client.abandonMessage(message.receiptHandle);
      const again = await receiveCount(h, client, b, 3);
      expect(again.map((message) => message.messageId).sort()).toEqual([...ids].sort());
      for (const message of again) expect(message.deliveryCount).toBe(2);
      for (const message of again) await client.completeMessage(message.receiptHandle);
      expect(await held(client, b)).toBe(0);
      expect(await held(client, c)).toBe(3);
      if (client.capabilities.lockedCount) expect((await client.admin.getQueueStats(c)).inFlight).toBe(3);
      for (const message of copies.get(c)!) await client.completeMessage(message.receiptHandle);
      expect(await held(client, c)).toBe(0);

      // publishMessage resolves the id given, or the one made for it, which every copy carries.
      expect(await client.publishMessage(topic, { body: "given", messageId: "fan-out-given" })).toBe(
        "fan-out-given",
      );
      const made = await client.publishMessage(topic, "made");
      expect(made.length).toBeGreaterThan(0);
      for (const path of paths) {
        const received = await receiveCount(h, client, path, 2);
        expect(received.map((message) => [message.messageId, message.text()]).sort()).toEqual(
          [
            ["fan-out-given", "given"],
            [made, "made"],
          ].sort(),
        );
      }
    },
  );

  contractCase(
    suite,
    "C83 a topic without a subscription, or none that matches, keeps nothing; getTopicStats counts subscriptions and publishes",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C83");
      const filter = equalityFilter(client, "region", "eu");
      suite.requires(context, "C83", filter !== undefined, "filters");
      const topic = await newTopic(h, client);
      expect(await client.admin.getTopicStats(topic)).toEqual({ subscriptions: 0, published: 0 });
      await client.publishMessages(topic, ["nobody-1", "nobody-2"]);
      expect(await client.admin.getTopicStats(topic)).toEqual({ subscriptions: 0, published: 2 });

      const path = await subscribe(h, client, topic, "eu-only", { rules: [{ name: "eu", filter: filter! }] });
      await client.publishMessages(topic, [
        { body: "us-1", attributes: { region: "us" } },
        { body: "none" },
        { body: "us-2", attributes: { region: "us" } },
      ]);
      expect(await client.admin.getQueueStats(path)).toMatchObject(EMPTY_STATS);
      expect(await client.admin.getTopicStats(topic)).toEqual({ subscriptions: 1, published: 5 });
      expect(await client.receiveMessage(path)).toBeNull();

      await client.publishMessage(topic, { body: "eu-1", attributes: { region: "eu" } });
      expect(await drainBodies(h, client, path, 1)).toEqual(["eu-1"]);
      await subscribe(h, client, topic, "second");
      expect(await client.admin.getTopicStats(topic)).toEqual({ subscriptions: 2, published: 6 });
    },
  );

  contractCase(
    suite,
    "C84 rules: with none left a subscription gets nothing; a message matching two rules is copied once; rule names are unique",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C84");
      const eu = equalityFilter(client, "region", "eu");
      const gold = equalityFilter(client, "tier", "gold");
      suite.requires(context, "C84", eu !== undefined && gold !== undefined, "filters");
      const topic = await newTopic(h, client);
      const path = await subscribe(h, client, topic, "ruled");
      await client.admin.deleteRule(topic, "ruled", DEFAULT_RULE.name);
      expect(await ruleNames(client, topic, "ruled")).toEqual([]);
      await client.publishMessages(topic, ["ignored", { body: "ignored too", attributes: { region: "eu" } }]);
      expect(await client.admin.getQueueStats(path)).toMatchObject(EMPTY_STATS);

      await client.admin.createRule(topic, "ruled", "gold", gold!);
      await client.admin.createRule(topic, "ruled", "eu", eu!);
      expect(await ruleNames(client, topic, "ruled")).toEqual(["eu", "gold"]);
      await expectCode(client.admin.createRule(topic, "ruled", "eu", gold!), "QueueAlreadyExists");
      await expectCode(client.admin.deleteRule(topic, "ruled", "missing"), "QueueNotFound");

      await client.publishMessages(topic, [
        { body: "both", attributes: { region: "eu", tier: "gold" } },
        { body: "eu", attributes: { region: "eu", tier: "silver" } },
        { body: "gold", attributes: { region: "us", tier: "gold" } },
        { body: "neither", attributes: { region: "us", tier: "silver" } },
      ]);
      expect(await drainBodies(h, client, path, 3)).toEqual(["both", "eu", "gold"]);

      await client.admin.deleteRule(topic, "ruled", "gold");
      await client.publishMessages(topic, [
        { body: "eu again", attributes: { region: "eu" } },
        { body: "gold again", attributes: { tier: "gold" } },
      ]);
      expect(await drainBodies(h, client, path, 1)).toEqual(["eu again"]);
    },
  );

  contractCase(
    suite,
    "C85 a correlation filter matches when every given field is equal: properties, message id and attributes",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C85");
      suite.requires(
        context,
        "C85",
        client.capabilities.filters.includes("correlation"),
        "correlation filters",
      );
      const topic = await newTopic(h, client);
      const correlationRules: Record<string, SubscriptionFilter> = {
        "by-correlation": { correlation: { correlationId: "c1" } },
        "by-content": { correlation: { contentType: "application/json" } },
        "by-session": { correlation: { sessionId: "s1" } },
        "by-id": { correlation: { messageId: "corr-id-1" } },
        "by-attributes": { correlation: { attributes: { region: "eu", tier: "gold" } } },
        "by-number": { correlation: { attributes: { amount: 5 } } },
        "by-two": { correlation: { correlationId: "c1", contentType: "application/json" } },
      };
      for (const [name, filter] of Object.entries(correlationRules))
        await subscribe(h, client, topic, name, { rules: [{ name: "only", filter }] });
      await expectRouting(
        h,
        client,
        topic,
        [
          { body: "1", messageId: "corr-id-1", correlationId: "c1", contentType: "application/json" },
          { body: "2", correlationId: "c2", contentType: "application/json", sessionId: "s1" },
          { body: "3", attributes: { region: "eu", tier: "gold", amount: "5" } },
          {
            body: "4",
            correlationId: "c1",
            contentType: "text/plain",
            sessionId: "s2",
            attributes: { region: "eu", amount: "6" },
          },
          { body: "5", attributes: { region: "EU", tier: "gold", amount: "50" } },
        ],
        {
          "by-correlation": ["1", "4"],
          "by-content": ["1", "2"],
          "by-session": ["2"],
          "by-id": ["1"],
          "by-attributes": ["3"],
          "by-number": ["3"],
          "by-two": ["1"],
        },
      );
    },
  );

  contractCase(
    suite,
    "C86 a SQL filter compares attributes and system properties; a missing attribute is unknown, matched by neither a test nor its NOT",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C86");
      suite.requires(context, "C86", client.capabilities.filters.includes("sql"), "sql filters");
      const topic = await newTopic(h, client);
      const sqlRules: Record<string, string> = {
        "eu-big": "region = 'eu' AND amount > 100",
        missing: "missing = 'x'",
        "not-missing": "NOT (missing = 'x')",
        system: "sys.correlationId = 'c1'",
      };
      for (const [name, sql] of Object.entries(sqlRules))
        await subscribe(h, client, topic, name, { rules: [{ name: "only", filter: { sql } }] });
      await expectRouting(
        h,
        client,
        topic,
        [
          { body: "eu-150", attributes: { region: "eu", amount: "150" } },
          { body: "eu-50", attributes: { region: "eu", amount: "50" } },
          { body: "us-500-c1", attributes: { region: "us", amount: "500" }, correlationId: "c1" },
          { body: "missing-x", attributes: { missing: "x" } },
          { body: "missing-y", attributes: { missing: "y" }, correlationId: "c2" },
        ],
        {
          "eu-big": ["eu-150"],
          missing: ["missing-x"],
          "not-missing": ["missing-y"],
          system: ["us-500-c1"],
        },
      );
    },
  );

  contractCase(
    suite,
    "C87 an SNS filter policy matches attributes (exact strings, numeric ranges) or, in body scope, the JSON body's nested keys",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C87");
      suite.requires(context, "C87", client.capabilities.filters.includes("policy"), "policy filters");
      const topic = await newTopic(h, client);
      await subscribe(h, client, topic, "attributes", {
        rules: [
          {
            name: "eu-big",
            filter: { policy: { region: ["eu"], amount: [{ numeric: [">", 100] }] }, scope: "attributes" },
          },
        ],
      });
      await subscribe(h, client, topic, "body", {
        rules: [{ name: "eu-orders", filter: { policy: { order: { region: ["eu"] } }, scope: "body" } }],
      });
      const eu = JSON.stringify({ order: { region: "eu", amount: 5 } });
      const us = JSON.stringify({ order: { region: "us" } });
      await expectRouting(
        h,
        client,
        topic,
        [
          { body: "eu-150", attributes: { region: "eu", amount: "150" } },
          { body: "eu-100", attributes: { region: "eu", amount: "100" } },
          { body: "us-150", attributes: { region: "us", amount: "150" } },
          { body: eu, attributes: { region: "us" } },
          { body: us, attributes: { region: "eu" } },
          { body: "not json {", attributes: { order: "eu" } },
        ],
        { attributes: ["eu-150"], body: [eu] },
      );
    },
  );

  contractCase(
    suite,
    "C88 a rule of a kind the provider does not evaluate is Unsupported at createRule and at createSubscription",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C88");
      const refused = FILTER_KINDS.filter((kind) => !client.capabilities.filters.includes(kind));
      suite.lacks(context, "C88", refused.length === 0, "every kind of filter");
      const topic = await newTopic(h, client);
      await subscribe(h, client, topic, "plain");
      for (const kind of refused) {
        const filter = SAMPLE_FILTERS[kind];
        await expectCode(client.admin.createRule(topic, "plain", kind, filter), "Unsupported");
        await expectCode(
          client.admin.createSubscription(topic, `with-${kind}`, { rules: [{ name: kind, filter }] }),
          "Unsupported",
        );
      }
      expect(await ruleNames(client, topic, "plain")).toEqual([DEFAULT_RULE.name]);
    },
  );

  contractCase(
    suite,
    "C89 a SQL filter that does not parse is Validation at creation, naming the position",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C89");
      suite.requires(context, "C89", client.capabilities.filters.includes("sql"), "sql filters");
      const topic = await newTopic(h, client);
      const atSubscription = await expectCode(
        client.admin.createSubscription(topic, "broken", {
          rules: [{ name: "bad", filter: { sql: "region = " } }],
        }),
        "Validation",
      );
      expect(atSubscription.message).toMatch(/column \d+/);
      await subscribe(h, client, topic, "fine");
      const atRule = await expectCode(
        client.admin.createRule(topic, "fine", "bad", { sql: "region = 'eu' AND AND amount > 1" }),
        "Validation",
      );
      expect(atRule.message).toMatch(/column \d+/);
      expect(await ruleNames(client, topic, "fine")).toEqual([DEFAULT_RULE.name]);
    },
  );

  contractCase(
    suite,
    "C90 a subscription with forwardTo sends its copies to that queue, which must exist, and holds none itself",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C90");
      const topic = await newTopic(h, client);
      const missing = h.queueName();
      await expectCode(
        client.admin.createSubscription(topic, "forwarded", { forwardTo: missing }),
        "QueueNotFound",
      );
      const target = await h.queue(client);
      const path = await subscribe(h, client, topic, "forwarded", { forwardTo: target });
      expect(await client.admin.getSubscription(topic, "forwarded")).toMatchObject({ forwardTo: target });
      const kept = await subscribe(h, client, topic, "kept");
      await client.publishMessages(topic, [{ body: "f1", attributes: { region: "eu" } }, "f2"]);
      const forwarded = await receiveCount(h, client, target, 2);
      expect(forwarded.map((message) => message.text()).sort()).toEqual(["f1", "f2"]);
      expect(forwarded.find((message) => message.text() === "f1")?.attributes).toMatchObject({
        region: "eu",
      });
      for (const message of forwarded) await client.completeMessage(message.receiptHandle);
      expect(await client.receiveMessage(target)).toBeNull();
      expect(await client.admin.getQueueStats(path)).toMatchObject(EMPTY_STATS);
      expect(await client.receiveMessage(path)).toBeNull();
      expect(await drainBodies(h, client, kept, 2)).toEqual(["f1", "f2"]);
    },
  );

  contractCase(
    suite,
    "C91 a subscription is a queue: receive, complete, abandon, dead-letter to deadLetterQueueOf(path), stats and purge",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C91");
      const topic = await newTopic(h, client);
      const path = await subscribe(h, client, topic, "worker");

      await client.publishMessage(topic, "done");
      const done = await client.receiveMessage(path, waitMs(h));
      expect(done?.text()).toBe("done");
      await client.completeMessage(done!.receiptHandle);
      expect(await held(client, path)).toBe(0);

      const id = await client.publishMessage(topic, "poison");
      const first = await client.receiveMessage(path, waitMs(h));
      expect(first?.deliveryCount).toBe(1);
      await client.abandonMessage(first!.receiptHandle);
      const second = await client.receiveMessage(path, waitMs(h));
      expect(second?.messageId).toBe(id);
      expect(second?.deliveryCount).toBe(2);
      await client.deadLetterMessage(second!.receiptHandle, "Poison", "cannot be handled");
      expect(await client.admin.getQueueStats(path)).toMatchObject({ ...EMPTY_STATS, deadLettered: 1 });
      const deadLetterQueue = await client.admin.deadLetterQueueOf(path);
      const dead = await client.receiveMessage(deadLetterQueue, waitMs(h));
      expect(dead?.messageId).toBe(id);
      expect(dead?.text()).toBe("poison");
      await client.completeMessage(dead!.receiptHandle);

      await client.publishMessages(topic, ["x", "y"]);
      expect(await client.admin.getQueueStats(path)).toMatchObject({ active: 2, inFlight: 0, delayed: 0 });
      expect(await client.admin.purgeQueue(path)).toBe(2);
      expect(await client.admin.getQueueStats(path)).toMatchObject(EMPTY_STATS);
      expect(await client.receiveMessage(path)).toBeNull();
    },
  );

  contractCase(
    suite,
    "C92 redrive moves a subscription's dead letters back to it, delivery count starting over",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C92");
      suite.requires(context, "C92", client.capabilities.redrive, "redrive");
      suite.requires(context, "C92", client.capabilities.subscriptionRedrive, "subscriptionRedrive");
      const topic = await newTopic(h, client);
      const path = await subscribe(h, client, topic, "retried");
      const other = await subscribe(h, client, topic, "other");
      const id = await client.publishMessage(topic, "retry me");
      const message = await client.receiveMessage(path, waitMs(h));
      await client.deadLetterMessage(message!.receiptHandle, "DownstreamUnavailable");
      const deadLetterQueue = await client.admin.deadLetterQueueOf(path);
      expect(await client.admin.redrive(deadLetterQueue)).toBe(1);
      const back = await client.receiveMessage(path, waitMs(h));
      expect(back?.messageId).toBe(id);
      expect(back?.text()).toBe("retry me");
      expect(back?.deliveryCount).toBe(1);
      await client.completeMessage(back!.receiptHandle);
      expect(await client.receiveMessage(deadLetterQueue)).toBeNull();
      expect(await held(client, other)).toBe(1);
    },
  );

  contractCase(
    suite,
    "C93 peekMessages shows a subscription's copies in order without receiving them",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C93");
      suite.requires(context, "C93", client.capabilities.peek, "peek");
      const topic = await newTopic(h, client);
      const path = await subscribe(h, client, topic, "peeked");
      const ids = await client.publishMessages(topic, ["p1", "p2"]);
      const peeked = await client.admin.peekMessages(path, 10);
      expect(peeked.map((message) => [message.messageId, message.text(), message.state])).toEqual([
        [ids[0], "p1", "active"],
        [ids[1], "p2", "active"],
      ]);
      const received = await receiveCount(h, client, path, 2);
      expect(received.map((message) => message.deliveryCount)).toEqual([1, 1]);
    },
  );

  contractCase(
    suite,
    "C94 a subscription's own options apply: maxDeliveryCount 1 dead-letters an abandon, its lockDurationMs locks",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C94");
      const topic = await newTopic(h, client);
      const lockDurationMs = h.options.lockDurationMs * 2;
      const once = await subscribe(h, client, topic, "once", { maxDeliveryCount: 1 });
      const locked = await subscribe(h, client, topic, "locked", { lockDurationMs });
      expect(await client.admin.getSubscription(topic, "once")).toMatchObject({ maxDeliveryCount: 1 });
      expect(await client.admin.getSubscription(topic, "locked")).toMatchObject({ lockDurationMs });
      const id = await client.publishMessage(topic, "fragile");

      const message = await client.receiveMessage(once, waitMs(h));
      await client.abandonMessage(message!.receiptHandle);
      expect(await client.receiveMessage(once)).toBeNull();
      const dead = await client.receiveMessage(await client.admin.deadLetterQueueOf(once), waitMs(h));
      expect(dead?.messageId).toBe(id);

      // On real time the lock is known to within the receive's round trip (and a second of rounding).
      const slack = h.clock ? 0 : 1_000;
      const before = h.now();
      const copy = await client.receiveMessage(locked, waitMs(h));
      const after = h.now();
      expect(copy?.messageId).toBe(id);
      expect(copy!.lockedUntil.getTime()).toBeGreaterThanOrEqual(before + lockDurationMs - slack);
      expect(copy!.lockedUntil.getTime()).toBeLessThanOrEqual(after + lockDurationMs + slack);
      if (client.capabilities.lockRenewal) {
        await h.advance(lockDurationMs / 4);
        const renewing = h.now();
        const renewed = await client.renewMessageLock(copy!.receiptHandle);
        expect(renewed.getTime()).toBeGreaterThanOrEqual(renewing + lockDurationMs - slack);
        expect(renewed.getTime()).toBeLessThanOrEqual(h.now() + lockDurationMs + slack);
      }
      await client.completeMessage(copy!.receiptHandle);
    },
  );

  contractCase(
    suite,
    "C95 a session subscription delivers a session's copies in order; a publish without a session id is refused with no copy anywhere",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C95");
      suite.requires(context, "C95", client.capabilities.sessions !== "none", "sessions");
      const topic = await newTopic(h, client, true);
      // Plain subscriptions on either side of the session one, by name and by creation: whichever
      // order a store makes copies in, one would get a copy before the refusal were it not all or none.
      const first = await subscribe(h, client, topic, "a-plain");
      const ordered = await subscribe(h, client, topic, "m-in-order", { requiresSession: true });
      const last = await subscribe(h, client, topic, "z-plain");
      const messages: Message[] = [];
      for (let i = 0; i < 5; i++)
        messages.push({ body: `s1-${i}`, sessionId: "s1" }, { body: `s2-${i}`, sessionId: "s2" });
      await client.publishMessages(topic, messages);

      const session = await client.acceptSession(ordered, "s1");
      const received: string[] = [];
      while (received.length < 5) {
        const batch = await session.receiveMessages(5 - received.length, waitMs(h));
        if (batch.length === 0) break;
        for (const message of batch) {
          expect(message.sessionId).toBe("s1");
          received.push(message.text());
          await session.completeMessage(message.receiptHandle);
        }
      }
      expect(received).toEqual(["s1-0", "s1-1", "s1-2", "s1-3", "s1-4"]);
      await session.closeSession();

      const error = await expectCode(client.publishMessage(topic, "no session"), "Validation");
      expect(error.message).toContain("m-in-order");
      expect(await held(client, first)).toBe(10);
      expect(await held(client, last)).toBe(10);
      expect(await held(client, ordered)).toBe(5);
    },
  );

  contractCase(
    suite,
    "C96 deleteTopic removes its subscriptions and their messages; deleteSubscription removes one",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C96");
      const topic = await newTopic(h, client);
      const first = await subscribe(h, client, topic, "first");
      const second = await subscribe(h, client, topic, "second");
      await client.publishMessages(topic, ["d1", "d2"]);

      await client.admin.deleteSubscription(topic, "first");
      expect(await client.admin.getSubscription(topic, "first")).toBeNull();
      expect(await client.admin.listSubscriptions(topic)).toEqual(["second"]);
      await expectCode(client.admin.getQueueStats(first), "QueueNotFound");
      expect(await held(client, second)).toBe(2);

      await client.admin.deleteTopic(topic);
      expect(await client.admin.getTopic(topic)).toBeNull();
      expect(await client.admin.listTopics(topic)).not.toContain(topic);
      expect(await client.admin.getSubscription(topic, "second")).toBeNull();
      await expectCode(client.admin.getQueueStats(second), "QueueNotFound");
      await expectCode(client.admin.deleteTopic(topic), "QueueNotFound");

      // Made again, the topic and subscription start empty.
      await client.admin.createTopic(topic);
      await subscribe(h, client, topic, "second");
      expect(await client.admin.getQueueStats(second)).toMatchObject(EMPTY_STATS);
      expect(await client.admin.getTopicStats(topic)).toEqual({ subscriptions: 1, published: 0 });
    },
  );

  contractCase(
    suite,
    "C97 a publish to a missing topic is QueueNotFound naming it, or creates it (keeping nothing) where createQueues is on",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C97");
      const missing = h.queueName();
      const error = await expectCode(client.publishMessage(missing, "lost"), "QueueNotFound");
      expect(error.message).toContain(missing);
      await expectCode(client.publishMessages(missing, ["lost", "too"]), "QueueNotFound");
      expect(await client.admin.getTopic(missing)).toBeNull();

      const creating = await h.clientCreatingQueues();
      expect(await creating.publishMessage(missing, { body: "creates", messageId: "creates-1" })).toBe(
        "creates-1",
      );
      expect(await creating.admin.listTopics(missing)).toEqual([missing]);
      expect(await creating.admin.listSubscriptions(missing)).toEqual([]);
      expect((await creating.admin.getTopicStats(missing)).subscriptions).toBe(0);
    },
  );

  contractCase(
    suite,
    "C98 listQueues shows no subscription nor its dead-letter queue; a queue and a topic share a name where names are apart, and are refused one where there is one namespace",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C98");
      const name = await h.queue(client);
      const topic = client.capabilities.entityNames === "apart" ? name : await newTopic(h, client);
      if (client.capabilities.entityNames === "one") {
        await expectCode(client.admin.createTopic(name), "QueueAlreadyExists");
        await expectCode(client.admin.createQueue(topic), "QueueAlreadyExists");
      } else await client.admin.createTopic(name);
      const path = await subscribe(h, client, topic, "shared");
      await client.sendMessage(name, "to the queue");
      await client.publishMessage(topic, "to the topic");
      expect(await drainBodies(h, client, name, 1)).toEqual(["to the queue"]);
      const copy = await client.receiveMessage(path, waitMs(h));
      expect(copy?.text()).toBe("to the topic");
      expect(await client.receiveMessage(path)).toBeNull();
      await client.deadLetterMessage(copy!.receiptHandle, "Listed?");
      const deadLetterQueue = await client.admin.deadLetterQueueOf(path);

      const queues = await client.admin.listQueues(name);
      expect(queues).toContain(name);
      expect(queues).not.toContain(path);
      expect(queues).not.toContain(deadLetterQueue);
      expect(await client.admin.getQueueStats(name)).toMatchObject(EMPTY_STATS);
    },
  );

  contractCase(
    suite,
    "C99 consume on a subscription's path runs the handler on its copies and completes them",
    async (h, context) => {
      const client = await topicClient(suite, h, context, "C99");
      const topic = await newTopic(h, client);
      const path = await subscribe(h, client, topic, "consumed");
      const other = await subscribe(h, client, topic, "other");
      const bodies = ["c0", "c1", "c2", "c3", "c4"];
      await client.publishMessages(topic, bodies);
      const handled: string[] = [];
      const consumer = client.consume(path, async (message) => {
        handled.push(message.text());
      });
      await expect.poll(() => consumer.metrics.completed).toBe(5);
      await consumer.stop();
      expect(handled.sort()).toEqual(bodies);
      expect(consumer.metrics).toMatchObject({ received: 5, completed: 5, failed: 0 });
      expect(await held(client, path)).toBe(0);
      expect(await held(client, other)).toBe(5);
    },
  );
}
