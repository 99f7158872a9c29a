import { createPostgresBackend, withBackend } from "bullmq";
import pg from "pg";
import PgBoss from "pg-boss";
import { createClient, type QueueClient } from "../src/index.js";
import {
  bestOfRounds,
  type DrainWork,
  drain,
  formatNumber as format,
  type Measurement,
  measureTimed,
  type Runs,
  rate,
  report,
} from "./lib.js";
import { receiveCostByDepth } from "./postgres-depth.js";
import { freshSchema, POSTGRES_URL, postgresSettings } from "./postgres-schema.js";
import { providerSingleWork, providerWork } from "./provider-work.js";

const MESSAGES = Number(process.env.POSTGRES_BENCH_MESSAGES ?? 20_000);
/** One at a time is three round trips per message: fewer messages, compared by rate. */
const SINGLE_MESSAGES = Number(process.env.POSTGRES_BENCH_SINGLE_MESSAGES ?? 5_000);
/** pg-boss and BullMQ move a few thousand msg/s at most here: fewer messages, compared by rate. */
const ANCHOR_MESSAGES = Number(process.env.POSTGRES_BENCH_ANCHOR_MESSAGES ?? 5_000);
const ROUNDS = Number(process.env.POSTGRES_BENCH_ROUNDS ?? 3);
/** BullMQ's docs give their PostgreSQL figures at worker concurrency 8 to 32: the middle of it. */
const BULLMQ_CONCURRENCY = Number(process.env.POSTGRES_BENCH_BULLMQ_CONCURRENCY ?? 16);
const BATCH = 10;
const LOOPS = 4;
const QUEUE = "bench";
/** How long the floor's receive hides a message, as a provider's lock would. */
const FLOOR_LOCK_MS = 30_000;
const GOAL_BATCHED_RATE = 20_000;
const GOAL_SINGLE_RATE = 2_000;
const GOAL_TIMES_PGBOSS = 50;
/** Ours' time per message at most this many times the floor's. */
const GOAL_FLOOR_SLOWDOWN = 1.5;

const body = { order: 42, sku: "A-1", qty: 3 };
const json = JSON.stringify(body);
const ourBodies = Array.from({ length: BATCH }, () => json);

/** One way of moving messages through a queue, run in a schema of its own. */
interface Contender {
  /** Its key in POSTGRES_BENCH_CONTENDERS. */
  readonly key: string;
  /** Sets up in the empty `schema`, measures its messages through, and closes what it opened. */
  run(schema: string): Promise<Measurement>;
}

const OURS = "queue-runtime postgres, batches of 10, 4 concurrent loops";

/** Our client on the PostgreSQL provider in `schema`, with the bench queue created. */
async function ourQueue(schema: string): Promise<QueueClient> {
  const url = new URL(POSTGRES_URL);
  url.searchParams.set("schema", schema);
  const client = await createClient(url.toString());
  await client.admin.createQueue(QUEUE);
  return client;
}

/** Measures `messages` through `work` in {@link drain}'s shape, then closes `close`. */
async function drained(
  name: string,
  messages: number,
  batch: number,
  loops: number,
  work: DrainWork,
  close: () => Promise<unknown>,
): Promise<Measurement> {
  try {
    return await measureTimed(name, messages, () => drain(messages, batch, loops, work));
  } finally {
    await close();
  }
}

/** The table, index and statements of the floor: what a PostgreSQL queue needs at the least. */
const FLOOR_SCHEMA = `
  CREATE TABLE messages (
    id bigserial PRIMARY KEY,
    queue text NOT NULL,
    body bytea NOT NULL,
    visible_at bigint NOT NULL,
    lock_token uuid,
    delivery_count int NOT NULL DEFAULT 0
  );
  CREATE INDEX messages_due ON messages (queue, visible_at, id)`;
const FLOOR_SEND = "INSERT INTO messages (queue, body, visible_at) SELECT $1, unnest($2::bytea[]), $3";
const FLOOR_RECEIVE = `
  UPDATE messages SET visible_at = $2::bigint + $4, lock_token = gen_random_uuid(), delivery_count = delivery_count + 1
  WHERE id IN (
    SELECT id FROM messages WHERE queue = $1 AND visible_at <= $2
    ORDER BY visible_at, id LIMIT $3 FOR UPDATE SKIP LOCKED
  )
  RETURNING id, body, lock_token, delivery_count`;
const FLOOR_DELETE = "DELETE FROM messages WHERE id = ANY($1::bigint[])";

/** The floor's shape: how many messages, in batches of how many, from how many loops. */
interface FloorShape {
  readonly name: string;
  readonly messages: number;
  readonly batch: number;
  readonly loops: number;
}

const FLOOR_BATCHED: FloorShape = {
  name: "floor: bare pg prepared statements, batches of 10, 4 concurrent loops",
  messages: MESSAGES,
  batch: BATCH,
  loops: LOOPS,
};
const FLOOR_SINGLE: FloorShape = {
  name: "floor: bare pg prepared statements, one at a time",
  messages: SINGLE_MESSAGES,
  batch: 1,
  loops: 1,
};

/** The floor: bare prepared statements, each loop on a connection of its own. */
async function floor(schema: string, shape: FloorShape): Promise<Measurement> {
  const connections = Array.from(
    { length: shape.loops },
    () => new pg.Client({ connectionString: POSTGRES_URL, options: `-c search_path=${schema}` }),
  );
  const closeAll = () => Promise.all(connections.map((connection) => connection.end()));
  try {
    await Promise.all(connections.map((connection) => connection.connect()));
    await connections[0]!.query(FLOOR_SCHEMA);
  } catch (error) {
    await closeAll();
    throw error;
  }
  const bodies = Array.from({ length: shape.batch }, () => Buffer.from(json));
  return drained(
    shape.name,
    shape.messages,
    shape.batch,
    shape.loops,
    {
      send: (loop) =>
        connections[loop]!.query({ name: "send", text: FLOOR_SEND, values: [QUEUE, bodies, Date.now()] }),
      async receiveAndSettle(loop) {
        const connection = connections[loop]!;
        const { rows } = await connection.query<{ id: string }>({
          name: "receive",
          text: FLOOR_RECEIVE,
          values: [QUEUE, Date.now(), shape.batch, FLOOR_LOCK_MS],
        });
        if (rows.length > 0)
          await connection.query({ name: "delete", text: FLOOR_DELETE, values: [rows.map((row) => row.id)] });
        return rows.length;
      },
    },
    closeAll,
  );
}

/** pg-boss's idiomatic batch API: `insert` of 10 jobs, `fetch` of up to 10, `complete` of their ids. */
async function pgBoss(schema: string): Promise<Measurement> {
  const boss = new PgBoss({ connectionString: POSTGRES_URL, schema });
  // Its maintenance reports errors as events; one not listened for would end the process.
  boss.on("error", (error) => console.error(`pg-boss: ${String(error)}`));
  await boss.start();
  await boss.createQueue(QUEUE);
  const jobs = Array.from({ length: BATCH }, () => ({ name: QUEUE, data: body }));
  return drained(
    "pg-boss 10.4 insert + fetch + complete, batches of 10, 4 concurrent loops",
    ANCHOR_MESSAGES,
    BATCH,
    LOOPS,
    {
      send: () => boss.insert(jobs),
      async receiveAndSettle() {
        const fetched = await boss.fetch(QUEUE, { batchSize: BATCH });
        if (fetched.length > 0)
          await boss.complete(
            QUEUE,
            fetched.map((job) => job.id),
          );
        return fetched.length;
      },
    },
    () => boss.stop({ graceful: false, wait: true }),
  );
}

const bullmqOnPostgres = withBackend(createPostgresBackend);

/**
 * BullMQ's idiomatic shape on its PostgreSQL backend: 4 loops `addBulk` 10 jobs at a time while a
 * `Worker` already waiting (no-op processor, jobs removed on completion) works them off.
 */
async function bullmq(schema: string): Promise<Measurement> {
  const connection = { connectionString: POSTGRES_URL, schema, migrate: true };
  const queue = new bullmqOnPostgres.Queue(QUEUE, { connection });
  const worker = new bullmqOnPostgres.Worker(QUEUE, async () => undefined, {
    connection,
    concurrency: BULLMQ_CONCURRENCY,
  });
  worker.on("error", (error) => console.error(`BullMQ worker: ${String(error)}`));
  const jobs = Array.from({ length: BATCH }, () => ({
    name: "m",
    data: body,
    opts: { removeOnComplete: true },
  }));
  try {
    await queue.waitUntilReady();
    await worker.waitUntilReady();
    return await measureTimed(
      `BullMQ 6.7 PostgreSQL backend, addBulk of 10 from 4 loops, Worker concurrency ${BULLMQ_CONCURRENCY}`,
      ANCHOR_MESSAGES,
      async () => {
        const started = performance.now();
        let completed = 0;
        const allCompleted = new Promise<number>((resolve, reject) => {
          worker.on("completed", () => {
            if (++completed === ANCHOR_MESSAGES) resolve(performance.now() - started);
          });
          // A job that failed would never complete: end the run instead of waiting for it.
          worker.on("failed", (_job, error) => reject(error));
        });
        let sent = 0;
        const produce = async () => {
          // Counted before the await, as drain does, so the loops send no more than asked between them.
          while (sent < ANCHOR_MESSAGES) {
            sent += BATCH;
            await queue.addBulk(jobs);
          }
        };
        await Promise.all(Array.from({ length: LOOPS }, produce));
        return allCompleted;
      },
    );
  } finally {
    await worker.close();
    await queue.close();
  }
}

const CONTENDERS: readonly Contender[] = [
  {
    key: "ours",
    async run(schema) {
      const client = await ourQueue(schema);
      return drained(OURS, MESSAGES, BATCH, LOOPS, providerWork(client, QUEUE, ourBodies), () =>
        client.close(),
      );
    },
  },
  {
    key: "ours-single",
    async run(schema) {
      const client = await ourQueue(schema);
      const name = "queue-runtime postgres, one at a time";
      return drained(name, SINGLE_MESSAGES, 1, 1, providerSingleWork(client, QUEUE, json), () =>
        client.close(),
      );
    },
  },
  { key: "pgboss", run: pgBoss },
  { key: "bullmq", run: bullmq },
  { key: "floor", run: (schema) => floor(schema, FLOOR_BATCHED) },
  { key: "floor-single", run: (schema) => floor(schema, FLOOR_SINGLE) },
];

/** Runs `contender` once in a fresh schema, dropped afterwards, and prints how it went. */
async function inFreshSchema(contender: Contender): Promise<Measurement> {
  const schema = await freshSchema(contender.key.replace(/-/g, "_"));
  try {
    const result = await contender.run(schema.name);
    const cpu = ((result.cpuMs ?? 0) * 1000) / result.items;
    console.log(`  ${contender.key}: ${format(rate(result))} msg/s, ${cpu.toFixed(1)} µs/msg`);
    return result;
  } finally {
    await schema.drop();
  }
}

/** Prints one goal: met or not with its figures, or what it needs when those contenders did not run. */
function goal(text: string, outcome: { met: boolean; figures: string } | undefined, needs: string): void {
  if (outcome === undefined) console.log(`- ${text}: - (needs ${needs})`);
  else console.log(`- ${text}: ${outcome.met ? "met" : "NOT met"} (${outcome.figures})`);
}

/** Prints the goals, and ours' ratios to the anchors and the floor, from each contender's best run. */
function goals(best: (key: string) => Measurement | undefined): void {
  const [ours, single, boss, bull, bare, bareSingle] = [
    "ours",
    "ours-single",
    "pgboss",
    "bullmq",
    "floor",
    "floor-single",
  ].map(best);
  console.log("\nGoals (ours = queue-runtime postgres, batches of 10, 4 loops; ratios by rate):");
  goal(
    `≥ ${format(GOAL_BATCHED_RATE)} msg/s in batches of 10 with 4 loops`,
    ours && { met: rate(ours) >= GOAL_BATCHED_RATE, figures: `${format(rate(ours))} msg/s` },
    "ours",
  );
  goal(
    `≥ ${format(GOAL_SINGLE_RATE)} msg/s one at a time`,
    single && {
      met: rate(single) >= GOAL_SINGLE_RATE,
      figures:
        `${format(rate(single))} msg/s` +
        (bareSingle === undefined
          ? ""
          : `; the floor one at a time ${format(rate(bareSingle))}, ours ${(rate(bareSingle) / rate(single)).toFixed(2)}x its time`),
    },
    "ours-single",
  );
  const timesBoss = ours && boss && rate(ours) / rate(boss);
  const timesBull = ours && bull && rate(ours) / rate(bull);
  goal(
    `faster than both anchors and ≥ ${GOAL_TIMES_PGBOSS}x pg-boss`,
    timesBoss === undefined || timesBull === undefined
      ? undefined
      : {
          met: timesBoss >= GOAL_TIMES_PGBOSS && timesBull > 1,
          figures: `ours ${timesBoss.toFixed(1)}x pg-boss, ${timesBull.toFixed(2)}x BullMQ`,
        },
    "ours, pgboss and bullmq",
  );
  const slowdown = ours && bare && rate(bare) / rate(ours);
  goal(
    `within ${GOAL_FLOOR_SLOWDOWN}x of the floor (ours' time per message ≤ ${GOAL_FLOOR_SLOWDOWN}x the floor's)`,
    slowdown === undefined
      ? undefined
      : { met: slowdown <= GOAL_FLOOR_SLOWDOWN, figures: `${slowdown.toFixed(2)}x the floor's time` },
    "ours and floor",
  );
}

/** The contenders to run (POSTGRES_BENCH_CONTENDERS=pgboss,bullmq,floor); all by default. */
const ONLY = (process.env.POSTGRES_BENCH_CONTENDERS ?? CONTENDERS.map((c) => c.key).join(",")).split(",");

/**
 * Our PostgreSQL provider against pg-boss, BullMQ's PostgreSQL backend and a floor of bare
 * statements, on the same database: send + receive + complete of small JSON messages, each run in
 * a fresh schema; the contenders take turns over the rounds, each one's fastest run kept.
 */
export async function run(): Promise<void> {
  const unknown = ONLY.filter((key) => !CONTENDERS.some((contender) => contender.key === key));
  if (unknown.length > 0)
    throw new Error(
      `unknown contenders: ${unknown.join(", ")} (known: ${CONTENDERS.map((c) => c.key).join(", ")})`,
    );
  const contenders = CONTENDERS.filter((contender) => ONLY.includes(contender.key));
  console.log(
    `\npostgres: ${format(MESSAGES)} messages per run in batches of ${BATCH} (pg-boss and BullMQ ${format(ANCHOR_MESSAGES)}, ` +
      `one at a time ${format(SINGLE_MESSAGES)}), best of ${ROUNDS} rounds, the contenders taking turns in each; ` +
      "CPU is this process's (user + system).",
  );
  console.log(`PostgreSQL server: ${await postgresSettings()}`);
  const runs: Runs[] = await bestOfRounds(
    ROUNDS,
    contenders.map((contender) => () => inFreshSchema(contender)),
  );
  const bests = runs.map((one) => one.best);
  report(
    `PostgreSQL queues: send + receive + complete of small JSON messages (best of ${ROUNDS})`,
    bests,
    OURS,
  );
  console.log("\nEach run (msg/s):");
  contenders.forEach((contender, index) => {
    console.log(`- ${contender.key}: ${runs[index]!.all.map(rate).map(format).join(", ")}`);
  });
  goals((key) => bests[contenders.findIndex((contender) => contender.key === key)]);
  await receiveCostByDepth();
}
