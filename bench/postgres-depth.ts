import pg from "pg";
import { createClient } from "../src/index.js";
import { formatNumber as format } from "./lib.js";
import { freshSchema, POSTGRES_URL } from "./postgres-schema.js";

/** The queue depths the receive cost is measured at (POSTGRES_BENCH_DEPTHS; empty skips it). */
const DEPTHS = (process.env.POSTGRES_BENCH_DEPTHS ?? "10,1000,100000,1000000")
  .split(",")
  .filter((depth) => depth.trim() !== "")
  .map(Number);
/** Receives of 10 (and completes of them) timed at each depth. */
const RECEIVES = Number(process.env.POSTGRES_BENCH_DEPTH_RECEIVES ?? 500);
const QUEUE = "deep";
/** Rows added per statement while filling. */
const FILL_STEP = 100_000;

/**
 * Adds `count` ready messages to the queue straight into the provider's table, as sends would
 * leave them: a million sends through the client would take minutes and measure nothing new.
 */
async function fill(connection: pg.Client, schema: string, count: number): Promise<void> {
  for (let done = 0; done < count; done += FILL_STEP)
    await connection.query(
      `INSERT INTO "${schema}".messages (queue_id, message_id, body, enqueued_at, state, visible_at)
       SELECT q.id, gen_random_uuid()::text, convert_to('{"order":42,"sku":"A-1","qty":3}', 'UTF8'), $2, 0, $2
       FROM "${schema}".queues q, generate_series(1, $3) WHERE q.name = $1`,
      [QUEUE, Date.now(), Math.min(FILL_STEP, count - done)],
    );
  await connection.query(`VACUUM ANALYZE "${schema}".messages`);
}

/**
 * How a receive of 10 and the completes of what came cost as the queue deepens: the queue is
 * filled to each depth in turn and {@link RECEIVES} of them timed, with 10 messages sent back
 * after each so the depth holds. Index-backed statements keep the cost flat.
 */
export async function receiveCostByDepth(): Promise<void> {
  if (DEPTHS.length === 0) return;
  const schema = await freshSchema("depth");
  const connection = new pg.Client({ connectionString: POSTGRES_URL });
  await connection.connect();
  const url = new URL(POSTGRES_URL);
  url.searchParams.set("schema", schema.name);
  const client = await createClient(url.toString());
  try {
    await client.admin.createQueue(QUEUE);
    const bodies = Array.from({ length: 10 }, () => JSON.stringify({ order: 42, sku: "A-1", qty: 3 }));
    console.log(
      `\nReceive cost by queue depth (receive of 10 + their completes, ${format(RECEIVES)} times at each depth, one loop):`,
    );
    console.log("| queued messages | µs per receive + completes | vs the shallowest |");
    console.log("|---:|---:|---:|");
    let queued = 0;
    let shallowest: number | undefined;
    for (const depth of DEPTHS) {
      await fill(connection, schema.name, depth - queued);
      queued = depth;
      let spentMs = 0;
      for (let round = 0; round < RECEIVES; round++) {
        const startedAt = performance.now();
        const received = await client.receiveMessages(QUEUE, 10);
        await Promise.all(received.map((message) => client.completeMessage(message.receiptHandle)));
        spentMs += performance.now() - startedAt;
        await client.sendMessages(QUEUE, bodies);
      }
      const micros = (spentMs * 1000) / RECEIVES;
      shallowest ??= micros;
      console.log(
        `| ${format(depth)} | ${format(Math.round(micros))} | ${(micros / shallowest).toFixed(2)}x |`,
      );
    }
  } finally {
    await client.close();
    await connection.end();
    await schema.drop();
  }
}
