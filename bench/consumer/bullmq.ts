import { Queue, Worker } from "bullmq";
import type { Measurement } from "../lib.js";
import { BODY, CONCURRENCY } from "./settings.js";
import { countTo, timedUntilDone } from "./timed.js";

const REDIS = { host: "127.0.0.1", port: 6379 };
/** Jobs per `addBulk` while filling the queue. */
const BULK = 1_000;

/**
 * BullMQ 6's `Worker` (Redis, concurrency {@link CONCURRENCY}, no-op processor) draining `count`
 * jobs added beforehand with `addBulk` and `removeOnComplete`: timed from `worker.run()` until its
 * `completed` event has fired for every job.
 */
export async function bullmqWorker(count: number): Promise<Measurement> {
  const name = `consumer-bench-${process.pid}`;
  const queue = new Queue(name, { connection: REDIS });
  const worker = new Worker(name, async () => undefined, {
    connection: REDIS,
    concurrency: CONCURRENCY,
    autorun: false,
  });
  try {
    await queue.obliterate({ force: true });
    const data = { body: BODY };
    for (let added = 0; added < count; added += BULK)
      await queue.addBulk(
        Array.from({ length: Math.min(BULK, count - added) }, () => ({
          name: "m",
          data,
          opts: { removeOnComplete: true },
        })),
      );
    await worker.waitUntilReady();
    return await timedUntilDone(
      `BullMQ 6.7 Worker (Redis), concurrency ${CONCURRENCY}`,
      count,
      (done, fail) => {
        worker.on("completed", countTo(count, done));
        // A job that failed would never complete: end the run instead of waiting for it.
        worker.on("failed", (_job, error) => fail(error));
        worker.on("error", fail);
        return worker.run();
      },
    );
  } finally {
    await worker.close();
    await queue.obliterate({ force: true });
    await queue.close();
  }
}
