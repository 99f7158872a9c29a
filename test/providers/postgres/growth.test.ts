import pg from "pg";
import { afterAll, describe, expect, test } from "vitest";
import { createClient } from "../../../src/index.js";
import { POSTGRES_URL, useSchema } from "./database.js";

const schema = useSchema();
/**
 * How many messages the steady load moves, and the stretches of it compared (counted in messages
 * moved, not in time, so a slow machine only makes the test longer).
 */
const MESSAGES = 15_000;
const EARLY_WINDOW: readonly [number, number] = [2_000, 6_000];
const LATE_WINDOW: readonly [number, number] = [10_000, MESSAGES];
const SAMPLE_EVERY_MESSAGES = 500;
const VACUUM_INTERVAL_MS = Number(process.env.GROWTH_VACUUM_INTERVAL_MS ?? 500);
/** How much the table may grow between the windows: this, or so much per message moved. */
const GROWTH_SLACK_BYTES = 256 * 1024;
const GROWTH_PER_MESSAGE_BYTES = 8;

/** One reading of the messages table while the load runs. */
interface Sample {
  readonly moved: number;
  readonly heapBytes: number;
}

describe("postgres provider: growth under a steady load", () => {
  const observer = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
  afterAll(() => observer.end());

  test("completed messages leave no lasting trace: the messages table stays the size it reached early on, however many messages go through", async () => {
    // This server may run without autovacuum (this machine's and CI's do): the provider's own
    // vacuum is what keeps the table from growing.
    const client = await createClient({
      provider: {
        type: "postgres",
        connectionString: POSTGRES_URL,
        schema,
        vacuumIntervalMs: VACUUM_INTERVAL_MS,
      },
    });
    await client.admin.createQueue("steady");
    const bodies = Array.from({ length: 10 }, (_, i) => JSON.stringify({ order: i, note: "x".repeat(100) }));
    const samples: Sample[] = [];
    const startedAt = Date.now();
    let moved = 0;
    while (moved < MESSAGES) {
      await client.sendMessages("steady", bodies);
      const received = await client.receiveMessages("steady", 10);
      await Promise.all(received.map((message) => client.completeMessage(message.receiptHandle)));
      const before = moved;
      moved += received.length;
      if (Math.floor(moved / SAMPLE_EVERY_MESSAGES) > Math.floor(before / SAMPLE_EVERY_MESSAGES)) {
        const size = await observer.query<{ bytes: string }>(
          "SELECT pg_relation_size($1::regclass) AS bytes",
          [`"${schema}".messages`],
        );
        samples.push({ moved, heapBytes: Number(size.rows[0]!.bytes) });
      }
    }
    const elapsedMs = Date.now() - startedAt;
    await client.close();

    const window = ([from, to]: readonly [number, number]) =>
      samples.filter((sample) => sample.moved >= from && sample.moved <= to);
    const early = window(EARLY_WINDOW);
    const late = window(LATE_WINDOW);
    const largest = (part: Sample[]) => Math.max(...part.map((sample) => sample.heapBytes));
    const stats = await observer.query<{ vacuums: string; live: string }>(
      "SELECT vacuum_count AS vacuums, n_live_tup AS live FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = 'messages'",
      [schema],
    );
    const report = {
      moved,
      elapsedMs,
      earlyLargest: largest(early),
      lateLargest: largest(late),
      movedBetween: late.at(-1)!.moved - early[0]!.moved,
      vacuums: Number(stats.rows[0]!.vacuums),
      live: Number(stats.rows[0]!.live),
    };
    const said = JSON.stringify(report);
    // The provider's vacuum runs on time: however fast the load went, some ran during it.
    expect(report.vacuums, said).toBeGreaterThanOrEqual(
      Math.min(5, Math.floor(elapsedMs / VACUUM_INTERVAL_MS / 2)),
    );
    // A table that keeps its dead rows grows by some 70 bytes per message moved here; this one
    // may differ from its early size by what one vacuum interval's messages take, not more.
    expect(report.lateLargest - report.earlyLargest, said).toBeLessThanOrEqual(
      Math.max(GROWTH_SLACK_BYTES, GROWTH_PER_MESSAGE_BYTES * report.movedBetween),
    );
  }, 120_000);
});
