import pg from "pg";
import { afterAll, describe, expect, test } from "vitest";
import { createClient } from "../../../src/index.js";
import { POSTGRES_URL, useSchema } from "./database.js";

const TABLES = ["messages", "groups", "duplicates"];

/** Runs `statement` on each of the queue tables of `schema`, one at a time (VACUUM needs that). */
async function eachTable(schema: string, statement: string): Promise<void> {
  const direct = new pg.Client({ connectionString: POSTGRES_URL });
  await direct.connect();
  try {
    for (const table of TABLES) await direct.query(`${statement} "${schema}".${table}`);
  } finally {
    await direct.end();
  }
}

/** Gathers the planner's statistics of the queue tables. */
const analyze = (schema: string) => eachTable(schema, "ANALYZE");
/** Vacuums the queue tables, as the provider's own vacuum does. */
const vacuum = (schema: string) => eachTable(schema, "VACUUM");

/**
 * A pool whose connections report the plan of every statement they run, nested ones (inside
 * the provider's functions) included, through PostgreSQL's auto_explain as notices.
 */
function explainingPool(plans: string[]): pg.Pool {
  const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
  pool.on("connect", (client) => {
    client.on("notice", (notice) => plans.push(notice.message ?? ""));
    void client.query(
      "LOAD 'auto_explain'; SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET auto_explain.log_level = 'notice'",
    );
  });
  return pool;
}

describe("postgres provider: query plans", () => {
  const plans: string[] = [];
  const pool = explainingPool(plans);
  afterAll(() => pool.end());

  /** The planner's statistics of the tables, as a database may hold them when the statements run. */
  const statistics = {
    // What ANALYZE (or autovacuum) leaves.
    analyzed: { schema: useSchema(), before: async () => undefined, after: analyze },
    // A server without autovacuum: the provider's vacuum ran while the queue was nearly empty,
    // and nothing analyzed the tables since, so their statistics say they are empty.
    "vacuumed nearly empty, never analyzed": {
      schema: useSchema(),
      before: vacuum,
      after: async () => undefined,
    },
  };

  test.each(Object.entries(statistics))(
    "with the tables %s, every statement of sending, receiving, settling, sessions and peeks reads messages through an index, not a scan of the table",
    async (_, { schema, before, after }) => {
      plans.length = 0;
      const setup = await createClient({
        provider: { type: "postgres", connectionString: POSTGRES_URL, schema },
      });
      // Locks that outlast the test however slow the machine: a lock that ends fails the settles below.
      await setup.admin.createQueue("deep", {
        maxDeliveryCount: 3,
        deduplicationWindowMs: 60_000,
        lockDurationMs: 600_000,
      });
      await setup.admin.createQueue("deep.fifo", { requiresSession: true });
      await setup.sendMessages("deep", ["first"]);
      await setup.completeMessage((await setup.receiveMessage("deep"))!.receiptHandle);
      await before(schema);
      // Deep enough that the planner prefers an index wherever one serves.
      for (let batch = 0; batch < 100; batch++) {
        await setup.sendMessages(
          "deep",
          Array.from({ length: 100 }, (_, i) => `m-${batch}-${i}`),
        );
        await setup.sendMessages(
          "deep.fifo",
          Array.from({ length: 20 }, (_, i) => ({
            body: `s-${batch}-${i}`,
            sessionId: `s${(batch * 20 + i) % 200}`,
          })),
        );
      }
      await setup.close();
      await after(schema);

      const client = await createClient({ provider: { type: "postgres", pool, schema } });
      await client.sendMessages("deep", [
        { body: "again", deduplicationId: "d-1" },
        { body: "delayed", delayMs: 60_000 },
      ]);
      const received = await client.receiveMessages("deep", 10);
      await client.completeMessage(received[0]!.receiptHandle);
      await client.abandonMessage(received[1]!.receiptHandle);
      await client.renewMessageLock(received[2]!.receiptHandle);
      await client.deadLetterMessage(received[3]!.receiptHandle, "Test");
      expect(await client.receiveMessages("deep.fifo", 5)).toHaveLength(5);
      const session = await client.acceptSession("deep.fifo");
      const ordered = await session.receiveMessages(5);
      await session.completeMessage(ordered[0]!.receiptHandle);
      await session.renewSessionLock();
      await session.setSessionState("state");
      await session.closeSession();
      expect(await client.receiveMessage("empty-after-this", 0).catch(() => null)).toBeNull();
      expect(await client.admin.peekMessages("deep.fifo", 10)).toHaveLength(10);
      const [middle] = await client.admin.peekMessages("deep", 1, received[5]!.sequenceNumber);
      expect(middle?.sequenceNumber).toBe(received[5]!.sequenceNumber);
      await client.close();

      // The groups and duplicates tables of this test fit in a few pages, where a scan is the planner's
      // right choice; their lookups are by primary key. Messages are what grows.
      const scans = plans.filter((plan) => /Seq Scan on messages\b/.test(plan));
      expect(plans.length).toBeGreaterThan(10);
      expect(scans).toEqual([]);
    },
    // 12,000 messages in 200 sends: seconds alone, more than a minute beside a busy test.
    180_000,
  );
});
