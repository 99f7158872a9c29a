import { setImmediate as nextTurn } from "node:timers/promises";
import type { Consumer, QueueClient } from "../../src/index.js";
import type { Measurement, TimedOptions } from "../lib.js";
import { handLoop } from "./floor.js";
import { countTo, timedUntilDone } from "./timed.js";

/** The handler of every contender: nothing, so what is measured is what runs it. */
export const noop = async (): Promise<void> => undefined;

/** Which of the two ways of draining a queue with our client. */
export type Drainer = "consumer" | "hand loop";

/** Resolves once `consumer` has completed `total` messages, looking again each turn of the event loop. */
async function completedAll(consumer: Consumer, total: number): Promise<void> {
  while (consumer.metrics.completed < total) await nextTurn();
}

/**
 * Times `drainer` draining `total` messages already in `queue`: our `client.consume(queue, handler,
 * { concurrency })` until `metrics.completed` reaches `total` (stopped afterwards, outside the
 * timing), or the {@link handLoop} that is its floor. The handler is a no-op counting its calls.
 */
export async function timedDrain(
  drainer: Drainer,
  name: string,
  client: QueueClient,
  queue: string,
  total: number,
  concurrency: number,
  options: TimedOptions = {},
): Promise<Measurement> {
  let consumer: Consumer | undefined;
  try {
    return await timedUntilDone(
      name,
      total,
      (done, fail) => {
        if (drainer === "hand loop")
          return handLoop(client, queue, total, concurrency, noop).then(done, fail);
        // The last handlers' completes are still on their way when the last handler returns.
        const handled = countTo(total, () => void completedAll(consumer!, total).then(done));
        consumer = client.consume(queue, async () => handled(), { concurrency });
        consumer.on("error", fail);
        consumer.on("failed", fail);
      },
      options,
    );
  } finally {
    await consumer?.stop();
  }
}

/** Sends `total` copies of `body` to `queue`, `batch` at a time from `loops` loops (before a timed drain). */
export async function fill(
  client: QueueClient,
  queue: string,
  total: number,
  body: string,
  batch: number,
  loops = 1,
): Promise<void> {
  const bodies = Array.from({ length: batch }, () => body);
  let sent = 0;
  const loop = async (): Promise<void> => {
    while (sent < total) {
      const count = Math.min(batch, total - sent);
      sent += count;
      await client.sendMessages(queue, count === batch ? bodies : bodies.slice(0, count));
    }
  };
  await Promise.all(Array.from({ length: loops }, loop));
}
