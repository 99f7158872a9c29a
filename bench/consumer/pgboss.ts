import PgBoss from "pg-boss";
import type { Measurement } from "../lib.js";
import { freshSchema, POSTGRES_URL } from "../postgres-schema.js";
import { BODY, CONCURRENCY, QUEUE } from "./settings.js";
import { countTo, timedUntilDone } from "./timed.js";

/** pg-boss 10's most frequent polling (its `work()` refuses less than 0.5 s; the default is 2 s). */
const POLLING_INTERVAL_SECONDS = 0.5;
/** Jobs per `insert` while filling the queue. */
const BULK = 1_000;

/**
 * pg-boss 10's `work()` at concurrency {@link CONCURRENCY}: pg-boss 10 has no `localConcurrency`
 * (a later major brought it), and each `work()` call adds one polling worker, so it is called that
 * many times, each with `batchSize: 1` (one no-op job at a time) and the shortest polling interval.
 * Drains `count` jobs inserted beforehand, in a fresh schema dropped afterwards; timed from the
 * first `work()` until the handler has run on every job (pg-boss completes it right after, unawaited).
 */
export async function pgBossWork(count: number): Promise<Measurement> {
  const schema = await freshSchema("pgboss_consumer");
  const boss = new PgBoss({ connectionString: POSTGRES_URL, schema: schema.name });
  // Its maintenance reports errors as events; one not listened for would end the process.
  boss.on("error", (error) => console.error(`pg-boss: ${String(error)}`));
  try {
    await boss.start();
    await boss.createQueue(QUEUE);
    const data = { body: BODY };
    for (let inserted = 0; inserted < count; inserted += BULK)
      await boss.insert(
        Array.from({ length: Math.min(BULK, count - inserted) }, () => ({ name: QUEUE, data })),
      );
    return await timedUntilDone(
      `pg-boss 10.4 work() ×${CONCURRENCY}, batchSize 1, polling every ${POLLING_INTERVAL_SECONDS} s`,
      count,
      async (done) => {
        const handled = countTo(count, done);
        const options = { batchSize: 1, pollingIntervalSeconds: POLLING_INTERVAL_SECONDS };
        for (let worker = 0; worker < CONCURRENCY; worker++)
          await boss.work(QUEUE, options, async () => handled());
      },
    );
  } finally {
    await boss.stop({ graceful: false, wait: true });
    await schema.drop();
  }
}
