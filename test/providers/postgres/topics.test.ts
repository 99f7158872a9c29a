import pg from "pg";
import { afterAll, describe, expect, test } from "vitest";
import { createClient, type QueueClient, subscriptionPath } from "../../../src/index.js";
import { migrate, SCHEMA_VERSION } from "../../../src/providers/postgres/postgres-schema.js";
import { resolveQueueDefaults } from "../../../src/rules/queue-defaults.js";
import { queueRecord } from "../../../src/rules/queue-records.js";
import { expectCode } from "../../../src/testing/contract/harness.js";
import { countingPool, POSTGRES_URL, useSchema } from "./database.js";

const schema = useSchema();
const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 4 });
afterAll(() => pool.end());

/** A client of its own pool (as another process would have), on this file's schema. */
async function processClient(createQueues = false): Promise<QueueClient> {
  return createClient({
    provider: { type: "postgres", connectionString: POSTGRES_URL, schema },
    createQueues,
  });
}

/** The bodies a queue holds, received and completed, sorted. */
async function drain(client: QueueClient, queue: string): Promise<string[]> {
  const bodies: string[] = [];
  for (;;) {
    const batch = await client.receiveMessages(queue, 10);
    if (batch.length === 0) return bodies.sort();
    for (const message of batch) {
      bodies.push(message.text());
      await client.completeMessage(message.receiptHandle);
    }
  }
}

/** Every message a queue holds, in any state. */
async function held(client: QueueClient, queue: string): Promise<number> {
  const stats = await client.admin.getQueueStats(queue);
  return stats.active + stats.inFlight + stats.delayed;
}

describe("postgres topics", () => {
  test("a schema of version 2 is migrated to one with topics, its queues and messages kept", async () => {
    const older = `${schema}_v2`;
    await migrate(pool, older, 2);
    const tables = await pool.query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_name = 'topics'",
      [older],
    );
    expect(tables.rows).toEqual([]);
    // A queue with a message, written as version 2 has them.
    const now = Date.now();
    await pool.query(
      `WITH q AS (INSERT INTO "${older}".queues (name, settings) VALUES ('kept', $1) RETURNING id)
       INSERT INTO "${older}".messages (queue_id, message_id, body, enqueued_at, state, visible_at)
       SELECT id, 'kept-1', 'still here', $2, 0, $2 FROM q`,
      [queueRecord("kept", {}, resolveQueueDefaults({}), now), now],
    );
    const client = await createClient({
      provider: { type: "postgres", connectionString: POSTGRES_URL, schema: older },
    });
    try {
      expect(await drain(client, "kept")).toEqual(["still here"]);
      const version = await pool.query(`SELECT version FROM "${older}".schema_version`);
      expect(version.rows).toEqual([{ version: SCHEMA_VERSION }]);
      await client.admin.createTopic("events");
      await client.admin.createSubscription("events", "all");
      await client.publishMessage("events", "published");
      expect(await drain(client, subscriptionPath("events", "all"))).toEqual(["published"]);
    } finally {
      await client.close();
      await pool.query(`DROP SCHEMA "${older}" CASCADE`);
    }
  });

  test("a subscription or rule another process makes or removes is honoured by this one's next publish", async () => {
    const publisher = await processClient();
    const admin = await processClient();
    try {
      await publisher.admin.createTopic("shared");
      await publisher.admin.createSubscription("shared", "first");
      await publisher.publishMessage("shared", "before");
      const second = subscriptionPath("shared", "second");

      await admin.admin.createSubscription("shared", "second");
      await publisher.publishMessage("shared", "after a subscription");
      expect(await drain(admin, second)).toEqual(["after a subscription"]);

      await admin.admin.deleteRule("shared", "second", "$Default");
      await publisher.publishMessage("shared", "after its rule went");
      expect(await held(admin, second)).toBe(0);

      await admin.admin.createRule("shared", "second", "eu", { sql: "region = 'eu'" });
      await publisher.publishMessages("shared", [
        { body: "eu", attributes: { region: "eu" } },
        { body: "us", attributes: { region: "us" } },
      ]);
      expect(await drain(admin, second)).toEqual(["eu"]);

      await admin.admin.deleteSubscription("shared", "second");
      await publisher.publishMessage("shared", "after it went");
      expect(await drain(publisher, subscriptionPath("shared", "first"))).toEqual(
        ["after a subscription", "after it went", "after its rule went", "before", "eu", "us"].sort(),
      );

      await admin.admin.deleteTopic("shared");
      await expectCode(publisher.publishMessage("shared", "gone"), "QueueNotFound");
    } finally {
      await publisher.close();
      await admin.close();
    }
  });

  test("a publish to a topic whose subscriptions are known is one statement", async () => {
    const { pool: counting, statements } = countingPool(pool);
    const client = await createClient({ provider: { type: "postgres", pool: counting, schema } });
    try {
      await client.admin.createTopic("counted");
      for (let i = 0; i < 10; i++) await client.admin.createSubscription("counted", `s${i}`);
      await client.publishMessage("counted", "first reads the subscriptions");
      statements.length = 0;
      await client.publishMessages("counted", ["one", "two", "three"]);
      expect(statements).toHaveLength(1);
      for (let i = 0; i < 10; i++) expect(await held(client, subscriptionPath("counted", `s${i}`))).toBe(4);
    } finally {
      await client.close();
    }
  });

  test("a refused message has no copy anywhere: a session subscription's, or a forwarding queue deleted by another process", async () => {
    const client = await processClient();
    const other = await processClient();
    try {
      await client.admin.createTopic("refusals.fifo");
      const plain = subscriptionPath("refusals.fifo", "a-plain");
      const ordered = subscriptionPath("refusals.fifo", "m-ordered");
      await client.admin.createSubscription("refusals.fifo", "a-plain");
      await client.admin.createSubscription("refusals.fifo", "m-ordered", { requiresSession: true });
      await client.admin.createSubscription("refusals.fifo", "z-plain");
      const error = await expectCode(
        client.publishMessages("refusals.fifo", [
          { body: "s-1", sessionId: "s" },
          { body: "no session" },
          { body: "s-2", sessionId: "s" },
        ]),
        "PartialBatchFailure",
      );
      expect(error.results?.map((result) => result.ok)).toEqual([true, false, true]);
      const refused = error.results?.[1];
      expect(refused?.ok === false && refused.error.code).toBe("Validation");
      expect(refused?.ok === false && refused.error.message).toContain("m-ordered");
      expect(await held(client, plain)).toBe(2);
      expect(await held(client, subscriptionPath("refusals.fifo", "z-plain"))).toBe(2);
      expect(await held(client, ordered)).toBe(2);

      await client.admin.createQueue("forwarded-to");
      await client.admin.createTopic("forwarding");
      await client.admin.createSubscription("forwarding", "kept");
      await client.admin.createSubscription("forwarding", "forward", { forwardTo: "forwarded-to" });
      await client.publishMessage("forwarding", "known");
      expect(await drain(client, "forwarded-to")).toEqual(["known"]);
      // This client still holds the forwarding queue as it was read; the statement finds it gone.
      await other.admin.deleteQueue("forwarded-to");
      await expectCode(client.publishMessage("forwarding", "nowhere to go"), "QueueNotFound");
      expect(await drain(client, subscriptionPath("forwarding", "kept"))).toEqual(["known"]);
      const creating = await processClient(true);
      try {
        await creating.publishMessage("forwarding", "made on demand");
        expect(await drain(creating, "forwarded-to")).toEqual(["made on demand"]);
      } finally {
        await creating.close();
      }
    } finally {
      await client.close();
      await other.close();
    }
  });

  test("a subscription with deduplication takes one copy of a deduplication id; one without takes each publish", async () => {
    const client = await processClient();
    try {
      await client.admin.createTopic("deduplicated");
      await client.admin.createSubscription("deduplicated", "once", { deduplicationWindowMs: 60_000 });
      await client.admin.createSubscription("deduplicated", "every", { deduplicationWindowMs: 0 });
      const message = { body: "repeated", deduplicationId: "d-1" };
      await client.publishMessages("deduplicated", [message, message]);
      await client.publishMessage("deduplicated", message);
      expect(await drain(client, subscriptionPath("deduplicated", "once"))).toEqual(["repeated"]);
      expect(await drain(client, subscriptionPath("deduplicated", "every"))).toEqual([
        "repeated",
        "repeated",
        "repeated",
      ]);
      expect(await client.admin.getTopicStats("deduplicated")).toEqual({ subscriptions: 2, published: 3 });
    } finally {
      await client.close();
    }
  });

  test("queue admin keeps to queues: a subscription's names are not made, deleted or listed as queues", async () => {
    const client = await processClient();
    try {
      await client.admin.createTopic("admin");
      await client.admin.createSubscription("admin", "sub");
      const path = subscriptionPath("admin", "sub");
      await expectCode(client.admin.createQueue(subscriptionPath("admin", "other")), "Validation");
      await expectCode(client.admin.deleteQueue(path), "Validation");
      await expectCode(client.admin.deleteQueue(`${path}/$deadletterqueue`), "Validation");
      expect(await client.admin.listQueues("admin")).toEqual([]);
      expect(await client.admin.getQueue(path)).not.toBeNull();
    } finally {
      await client.close();
    }
  });
});
