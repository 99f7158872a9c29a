import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { JournalStore } from "../../src/engine/journal/journal-store.js";
import { MemoryStore } from "../../src/engine/memory/memory-store.js";
import { QueueEngine } from "../../src/engine/queue-engine.js";
import { SqliteStore } from "../../src/engine/sqlite/sqlite-store.js";
import type { QueueStore } from "../../src/engine/store.js";
import { subscriptionPath } from "../../src/index.js";
import { outgoingMessage } from "../support/outgoing-message.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-topics-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const MAX_BYTES = 1_048_576;
const text = (record: { body: Uint8Array }) => Buffer.from(record.body).toString();

/** Each store, made (and made again from the same file, where it has one) by `open`. */
const STORES: [string, (file: string) => QueueStore][] = [
  ["memory", () => new MemoryStore()],
  ["sqlite", (file) => new SqliteStore(join(directory, `${file}.db`))],
  ["journal", (file) => new JournalStore(join(directory, `${file}.journal`), { compactAfterBytes: 1 })],
];

describe.each(STORES)("engine topics (%s store)", (_, open) => {
  it("copies a published message to every subscription a rule of which matches, all copies in one step", async () => {
    const engine = new QueueEngine(open(`fan-out-${Math.random()}`));
    try {
      engine.topics.create("orders", {}, MAX_BYTES);
      engine.topics.subscribe("orders", "all", {});
      engine.topics.subscribe("orders", "eu", { rules: [{ name: "eu", filter: { sql: "region = 'eu'" } }] });
      engine.topics.subscribe("orders", "ordered", { requiresSession: true });
      const outcomes = engine.topics.publish(
        "orders",
        [
          outgoingMessage("eu-1", { attributes: { region: "eu" }, sessionId: "s" }),
          // Refused whole: the session subscription matches it and it has no session id.
          outgoingMessage("us-1", { attributes: { region: "us" } }),
        ],
        MAX_BYTES,
      );
      expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, false]);
      expect(outcomes[1]).toMatchObject({ error: { code: "Validation" } });
      expect(await engine.receive(subscriptionPath("orders", "all"), 10, text)).toEqual(["eu-1"]);
      expect(await engine.receive(subscriptionPath("orders", "eu"), 10, text)).toEqual(["eu-1"]);
      expect(engine.topics.withSubscriptions("orders").topic.published).toBe(1);
    } finally {
      await engine.close();
    }
  });
});

describe.each(STORES.filter(([kind]) => kind !== "memory"))(
  "engine topics across a reopen (%s store)",
  (_, open) => {
    it("keeps topics, subscriptions, rules, the published count and the copies when the store is opened again", async () => {
      const file = `reopen-${Math.random()}`;
      const first = new QueueEngine(open(file));
      first.topics.create("orders", { defaultTimeToLiveMs: 60_000 }, MAX_BYTES);
      first.topics.subscribe("orders", "eu", {
        rules: [{ name: "eu", filter: { correlation: { subject: "x" } } }],
      });
      first.topics.createRule("orders", "eu", "big", { sql: "amount > 100" });
      first.topics.deleteRule("orders", "eu", "eu");
      first.topics.publish("orders", [outgoingMessage("big", { attributes: { amount: "150" } })], MAX_BYTES);
      await first.close();
      const again = new QueueEngine(open(file));
      try {
        expect(
          again.topics.list().map((topic) => [topic.name, topic.defaultTimeToLiveMs, topic.published]),
        ).toEqual([["orders", 60_000, 1]]);
        expect(again.topics.listRules("orders", "eu")).toEqual([
          { name: "big", filter: { sql: "amount > 100" } },
        ]);
        expect(await again.receive(subscriptionPath("orders", "eu"), 10, text)).toEqual(["big"]);
        again.topics.delete("orders");
      } finally {
        await again.close();
      }
      const deleted = new QueueEngine(open(file));
      try {
        expect(deleted.topics.list()).toEqual([]);
        expect(deleted.getQueueRecord(subscriptionPath("orders", "eu"))).toBeUndefined();
      } finally {
        await deleted.close();
      }
    });
  },
);
