import { readdirSync, readFileSync } from "node:fs";
import Database from "better-sqlite3";
import pg from "pg";
import { z } from "zod";
import { createClient, type QueueClient, type ReceivedMessage } from "../src/index.js";
import {
  defineEvent,
  postgresStore,
  Receiver,
  type ReceivingStore,
  type StandardIssue,
  type StandardSchemaV1,
  sqliteStore,
} from "../src/receiving/index.js";
import {
  bestOfRounds,
  formatNumber as format,
  type Measurement,
  measure,
  type Runs,
  rate,
  report,
  temporaryFile,
} from "./lib.js";
import { freshSchema, POSTGRES_URL as POSTGRES, postgresSettings } from "./postgres-schema.js";

const EVENTS = Number(process.env.RECEIVING_BENCH_EVENTS ?? 20_000);
const RUNS = 3;
const QUEUE = "orders";
const SUBSCRIBER = "noop";
/**
 * The floors' shape, as a tick's: batches of 10 received, up to 10 in a round, then the due
 * deliveries 100 at a time.
 */
const RECEIVE_BATCH = 10;
const BATCHES_PER_ROUND = 10;
const DELIVERY_BATCH = 100;
/** The goals: events per second end to end, and ours at least this share of its floor's rate. */
const GOAL_RATE = { sqlite: 5_000, postgres: 2_000 } as const;
const GOAL_FLOOR_SHARE = 0.5;
let runCounter = 0;

/** What the event's schema keeps of a message. */
interface OrderShipped {
  readonly orderId: string;
  readonly sku: string;
  readonly quantity: number;
}

/** The fields of a body the floors pick out, as our schema does. */
interface FloorEvent {
  readonly id: string;
  readonly event: string;
  readonly payload: string;
}

/** A hand-written Standard Schema v1 validator, so that the hot path measures our library rather than a validator. */
const benchSchema: StandardSchemaV1<unknown, OrderShipped> = {
  "~standard": {
    version: 1,
    vendor: "bench",
    validate(value) {
      if (typeof value !== "object" || value === null) return { issues: [{ message: "not an object" }] };
      const { orderId, sku, quantity } = value as Record<string, unknown>;
      const issues: StandardIssue[] = [];
      if (typeof orderId !== "string") issues.push({ message: "a text", path: ["orderId"] });
      if (typeof sku !== "string") issues.push({ message: "a text", path: ["sku"] });
      if (typeof quantity !== "number" || !Number.isInteger(quantity) || quantity < 1)
        issues.push({ message: "a whole number, 1 or more", path: ["quantity"] });
      if (issues.length > 0) return { issues };
      return { value: { orderId: orderId as string, sku: sku as string, quantity: quantity as number } };
    },
  },
};

/** The same event read by zod, as extra information on what a common validator costs. */
const zodSchema = z.object({ orderId: z.string(), sku: z.string(), quantity: z.number().int().min(1) });

/** The `count` bodies of one run, each with an id of its own. */
function bodies(count: number): string[] {
  const run = runCounter++;
  return Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      id: `evt-${run}-${i}`,
      type: "order_shipped",
      orderId: `ord-${i}`,
      sku: `SKU-${i % 100}`,
      quantity: 3,
    }),
  );
}

/** A memory queue client whose queue holds `count` fresh messages. */
async function filledQueue(count: number): Promise<QueueClient> {
  const client = await createClient({ provider: { type: "memory", lockDurationMs: 600_000 } });
  const all = bodies(count);
  for (let i = 0; i < all.length; i += 1_000) await client.sendMessages(QUEUE, all.slice(i, i + 1_000));
  return client;
}

/** Fails the run unless the queue is empty: every message was completed. */
async function expectEmpty(client: QueueClient, name: string): Promise<void> {
  const stats = await client.admin.getQueueStats(QUEUE);
  if (stats.active + stats.inFlight + stats.delayed + stats.deadLettered !== 0)
    throw new Error(`${name}: the queue still holds messages: ${JSON.stringify(stats)}`);
}

const utf8 = new TextDecoder();

/** What a floor does with a body: JSON.parse it and pick the fields our schema keeps. */
function readBody(message: ReceivedMessage): FloorEvent {
  const root = JSON.parse(utf8.decode(message.body)) as Record<string, unknown>;
  const { id, type, orderId, sku, quantity } = root;
  if (typeof id !== "string" || typeof type !== "string") throw new Error("a body without id or type");
  return { id, event: type, payload: JSON.stringify({ orderId, sku, quantity }) };
}

/** Where the runs of one kind of store put their tables, made fresh for each run. */
interface Target {
  /** A new store on the run's tables (each receiver takes one, as separate processes would). */
  store(): ReceivingStore;
  /** Removes the run's tables. */
  cleanup(): Promise<void>;
}

/** A fresh SQLite file, in a temporary directory of its own. */
function sqliteTarget(): Target & { readonly path: string } {
  const { path, remove } = temporaryFile("receiving.db");
  return { path, store: () => sqliteStore(path), cleanup: async () => remove() };
}

/** A fresh PostgreSQL schema, with a pool whose search_path is it. */
async function postgresTarget(): Promise<Target & { readonly pool: pg.Pool }> {
  const schema = await freshSchema("receiving");
  const pool = new pg.Pool({ connectionString: POSTGRES, options: `-c search_path=${schema.name}` });
  pool.on("error", () => undefined);
  return {
    pool,
    store: () => postgresStore(pool),
    async cleanup() {
      await pool.end();
      await schema.drop();
    },
  };
}

/** CPU time (user + system, ms) of every process named `postgres` on this machine: the server's share of a run. */
function postgresServerCpuMs(): Map<number, number> {
  const ticks = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, "utf8").trim() !== "postgres") continue;
      // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks.set(Number(entry), ((Number(fields[11]) + Number(fields[12])) * 1000) / 100);
    } catch {
      // A process that ended meanwhile.
    }
  }
  return ticks;
}

/** The server CPU (ms) spent since `before` was read, counting processes started since from zero. */
function serverCpuSince(before: Map<number, number>): number {
  let total = 0;
  for (const [pid, ms] of postgresServerCpuMs()) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** Measures `work` on `count` events and, on PostgreSQL, notes the server's CPU beside ours. */
async function measureRun(
  name: string,
  count: number,
  onPostgres: boolean,
  work: () => Promise<unknown>,
): Promise<Measurement> {
  const before = onPostgres ? postgresServerCpuMs() : undefined;
  const result = await measure(name, count, work);
  if (before !== undefined) result.note = `server CPU ${Math.round(serverCpuSince(before))} ms`;
  return result;
}

/** How one of our contenders is set up. */
interface OursOptions {
  /** Receivers ticking at once, each with a store of its own on the same tables (default 1). */
  readonly receivers?: number;
  /** The event's schema (default: the hand-written one). */
  readonly schema?: StandardSchemaV1<unknown, OrderShipped>;
  readonly onPostgres: boolean;
  /** Events through the run (default `EVENTS`). */
  readonly events?: number;
}

/**
 * Ours: Receivers on one memory queue, ticking until the no-op subscriber has run for every event.
 */
async function ours(name: string, target: Target, options: OursOptions): Promise<Measurement> {
  const { receivers = 1, schema = benchSchema, onPostgres, events = EVENTS } = options;
  const client = await filledQueue(events);
  const event = defineEvent("OrderShipped", { wireName: "order_shipped", schema });
  let delivered = 0;
  const errors: unknown[] = [];
  const made = Array.from({ length: receivers }, () => {
    const store = target.store();
    const receiver = new Receiver({
      store,
      queues: [{ name: QUEUE, client, idAt: "id", typeAt: "type", events: [event] }],
      subscribers: [
        {
          name: SUBSCRIBER,
          events: [event],
          handle: () => {
            delivered++;
          },
        },
      ],
      onError: (error) => errors.push(error),
    });
    return { store, receiver };
  });
  try {
    // Tables are created before the clock starts, as the floors' are.
    for (const { store } of made) await store.open();
    const result = await measureRun(name, events, onPostgres, () =>
      Promise.all(
        made.map(async ({ receiver }) => {
          for (let ticks = 0; delivered < events; ticks++) {
            if (ticks > events) throw new Error(`${name}: no progress after ${ticks} ticks`);
            await receiver.tick();
          }
        }),
      ),
    );
    const kept = made.reduce((sum, { receiver }) => sum + receiver.metrics.kept, 0);
    if (errors.length > 0) throw errors[0];
    if (kept !== events || delivered !== events)
      throw new Error(`${name}: kept ${kept} and delivered ${delivered} of ${events} events`);
    await expectEmpty(client, name);
    return result;
  } finally {
    for (const { receiver } of made) await receiver.close();
    await client.close();
    await target.cleanup();
  }
}

/** Ours on SQLite: one Receiver with sqliteStore and the hand-written schema, through `events` events. */
export function sqliteReceiver(events = EVENTS): Promise<Measurement> {
  return ours("ours: Receiver + sqliteStore", sqliteTarget(), { onPostgres: false, events });
}

/** The subscriber of the floors: reads the payload, as ours hands subscribers the parsed value, and does nothing. */
function floorSubscriber(payload: string): void {
  JSON.parse(payload);
}

/** The floors' table prefix: their tables are ours (the same columns, constraints and indexes), made by our migration before the clock starts. */
const FLOOR_PREFIX = "floor_";

/**
 * The SQLite floor: the rows our store writes per event (the received id, an outbox row, a
 * delivery) in one transaction per batch of 10, then the due deliveries selected 100 at a time,
 * run, and deleted with their outbox rows; better-sqlite3 directly, WAL and synchronous=NORMAL.
 */
export async function sqliteFloor(events = EVENTS): Promise<Measurement> {
  const client = await filledQueue(events);
  const target = sqliteTarget();
  const tables = sqliteStore(target.path, { tablePrefix: FLOOR_PREFIX });
  await tables.open();
  await tables.close();
  const db = new Database(target.path);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    const record = db.prepare(
      "INSERT OR IGNORE INTO floor_received_events (queue, id, recorded_at) VALUES (?, ?, ?)",
    );
    const writeOutbox = db.prepare(
      "INSERT INTO floor_outbox (queue, event_id, event, payload, created_at, remaining) VALUES (?, ?, ?, ?, ?, 1)",
    );
    const writeDelivery = db.prepare(
      "INSERT INTO floor_deliveries (outbox_id, subscriber, status, due_at) VALUES (?, ?, 'pending', ?)",
    );
    const keep = db.transaction((events: readonly FloorEvent[], now: number) => {
      for (const event of events) {
        if (record.run(QUEUE, event.id, now).changes === 0) continue;
        const outboxId = writeOutbox.run(QUEUE, event.id, event.event, event.payload, now).lastInsertRowid;
        writeDelivery.run(outboxId, SUBSCRIBER, now);
      }
    });
    const due = db.prepare(
      `SELECT d.id, d.outbox_id, o.payload FROM floor_deliveries d JOIN floor_outbox o ON o.id = d.outbox_id
       WHERE d.status = 'pending' AND d.due_at <= ? ORDER BY d.due_at, d.id LIMIT ?`,
    );
    const deleteDelivery = db.prepare("DELETE FROM floor_deliveries WHERE id = ?");
    const deleteOutbox = db.prepare("DELETE FROM floor_outbox WHERE id = ?");
    const settle = db.transaction((rows: readonly { id: number; outbox_id: number }[]) => {
      for (const row of rows) {
        deleteDelivery.run(row.id);
        deleteOutbox.run(row.outbox_id);
      }
    });
    let delivered = 0;
    const result = await measureRun("floor: better-sqlite3 transactions", events, false, async () => {
      while (delivered < events) {
        const completions: Promise<unknown>[] = [];
        for (let batch = 0; batch < BATCHES_PER_ROUND; batch++) {
          const messages = await client.receiveMessages(QUEUE, RECEIVE_BATCH, 0);
          if (messages.length === 0) break;
          keep.immediate(messages.map(readBody), Date.now());
          completions.push(Promise.all(messages.map((m) => client.completeMessage(m.receiptHandle))));
          if (messages.length < RECEIVE_BATCH) break;
        }
        await Promise.all(completions);
        for (;;) {
          const rows = due.all(Date.now(), DELIVERY_BATCH) as {
            id: number;
            outbox_id: number;
            payload: string;
          }[];
          for (const row of rows) floorSubscriber(row.payload);
          settle.immediate(rows);
          delivered += rows.length;
          if (rows.length < DELIVERY_BATCH) break;
        }
      }
    });
    if (delivered !== events) throw new Error(`SQLite floor delivered ${delivered} of ${events} events`);
    await expectEmpty(client, "SQLite floor");
    return result;
  } finally {
    db.close();
    await client.close();
    await target.cleanup();
  }
}

/** The batch of 10 in one statement, shaped like our store's `keep`: ids recorded, outbox rows and deliveries for the new ones. */
const FLOOR_PG_KEEP = `
  WITH input AS (
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS i(queue, id, event, payload)
  ),
  recorded AS (
    INSERT INTO floor_received_events (queue, id, recorded_at)
    SELECT queue, id, $5 FROM input ORDER BY queue, id
    ON CONFLICT DO NOTHING RETURNING queue, id
  ),
  outbox AS (
    INSERT INTO floor_outbox (queue, event_id, event, payload, created_at, remaining)
    SELECT i.queue, i.id, i.event, i.payload::jsonb, $5, 1
    FROM input i JOIN recorded r ON r.queue = i.queue AND r.id = i.id
    RETURNING id
  )
  INSERT INTO floor_deliveries (outbox_id, subscriber, status, due_at)
  SELECT id, $6, 'pending', $5 FROM outbox`;

/** The due deliveries with their payloads, locked (skipping those another loop holds) until the transaction ends. */
const FLOOR_PG_DUE = `
  SELECT d.id, d.outbox_id, o.payload::text AS payload
  FROM floor_deliveries d JOIN floor_outbox o ON o.id = d.outbox_id
  WHERE d.status = 'pending' AND d.due_at <= $1
  ORDER BY d.due_at, d.id LIMIT $2 FOR UPDATE OF d SKIP LOCKED`;

const FLOOR_PG_SETTLE = `
  WITH gone AS (DELETE FROM floor_deliveries WHERE id = ANY($1::bigint[]) RETURNING outbox_id)
  DELETE FROM floor_outbox WHERE id IN (SELECT outbox_id FROM gone)`;

/** Runs `work` between BEGIN and COMMIT on a connection of `pool`. */
async function inTransaction(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    await work(client);
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/**
 * The PostgreSQL floor: `loops` loops on one memory queue, each writing a batch of 10 per
 * transaction with one multi-row statement like ours, then running the due deliveries 100 at a
 * time in one transaction (select FOR UPDATE SKIP LOCKED, run, delete with the outbox rows).
 * Its statements are prepared (named), as ours are.
 */
async function postgresFloor(loops: number): Promise<Measurement> {
  const client = await filledQueue(EVENTS);
  const target = await postgresTarget();
  const { pool } = target;
  try {
    const tables = postgresStore(pool, { tablePrefix: FLOOR_PREFIX });
    await tables.open();
    await tables.close();
    let delivered = 0;
    const loop = async () => {
      while (delivered < EVENTS) {
        const completions: Promise<unknown>[] = [];
        for (let batch = 0; batch < BATCHES_PER_ROUND; batch++) {
          const messages = await client.receiveMessages(QUEUE, RECEIVE_BATCH, 0);
          if (messages.length === 0) break;
          const events = messages.map(readBody);
          await inTransaction(pool, async (connection) => {
            await connection.query({
              name: "floor_keep",
              text: FLOOR_PG_KEEP,
              values: [
                events.map(() => QUEUE),
                events.map((e) => e.id),
                events.map((e) => e.event),
                events.map((e) => e.payload),
                Date.now(),
                SUBSCRIBER,
              ],
            });
          });
          completions.push(Promise.all(messages.map((m) => client.completeMessage(m.receiptHandle))));
          if (messages.length < RECEIVE_BATCH) break;
        }
        await Promise.all(completions);
        for (let more = true; more; ) {
          await inTransaction(pool, async (connection) => {
            const { rows } = await connection.query<{ id: string; outbox_id: string; payload: string }>({
              name: "floor_due",
              text: FLOOR_PG_DUE,
              values: [Date.now(), DELIVERY_BATCH],
            });
            for (const row of rows) floorSubscriber(row.payload);
            if (rows.length > 0)
              await connection.query({
                name: "floor_settle",
                text: FLOOR_PG_SETTLE,
                values: [rows.map((row) => row.id)],
              });
            delivered += rows.length;
            more = rows.length === DELIVERY_BATCH;
          });
        }
      }
    };
    const name = `floor: pg transactions${loops > 1 ? `, ${loops} concurrent loops` : ""}`;
    const result = await measureRun(name, EVENTS, true, () =>
      Promise.all(Array.from({ length: loops }, loop)),
    );
    if (delivered !== EVENTS) throw new Error(`PostgreSQL floor delivered ${delivered} of ${EVENTS} events`);
    await expectEmpty(client, "PostgreSQL floor");
    return result;
  } finally {
    await client.close();
    await target.cleanup();
  }
}

/** Prints each of ours against its floor: events/s, CPU ms, the ratio, each run's rate, and whether both goals are met. */
function goals(
  title: string,
  goalRate: number,
  pairs: readonly { readonly ours: Runs; readonly floor: Runs }[],
): void {
  console.log(
    `\n### ${title}: goals (at least ${format(goalRate)} events/s, and ours/floor ≥ ${GOAL_FLOOR_SHARE})\n`,
  );
  console.log(
    "| contender | events/s | CPU ms | floor | floor events/s | floor CPU ms | ours/floor | runs (events/s), ours / floor | rate goal | floor goal |",
  );
  console.log("|---|---:|---:|---|---:|---:|---:|---|---|---|");
  for (const { ours, floor } of pairs) {
    const share = rate(ours.best) / rate(floor.best);
    const runs = `${ours.all.map(rate).map(format).join(", ")} / ${floor.all.map(rate).map(format).join(", ")}`;
    console.log(
      `| ${ours.best.name} | ${format(rate(ours.best))} | ${format(ours.best.cpuMs ?? 0)} | ${floor.best.name} | ${format(rate(floor.best))} | ${format(floor.best.cpuMs ?? 0)} | ${share.toFixed(2)}x | ${runs} | ${rate(ours.best) >= goalRate ? "met" : "NOT met"} | ${share >= GOAL_FLOOR_SHARE ? "met" : "NOT met"} |`,
    );
  }
}

/** The stores to run (RECEIVING_BENCH_STORES=sqlite or postgres; both by default). */
const STORES = (process.env.RECEIVING_BENCH_STORES ?? "sqlite,postgres").split(",");

/** Events received end to end (queue → store → subscriber) on SQLite and PostgreSQL, each against a floor of bare transactions. */
export async function run(): Promise<void> {
  console.log(
    `\nreceiving: ${format(EVENTS)} events per run, best of ${RUNS} rounds (the contenders take turns in each)` +
      "; CPU is this process's (user + system); on PostgreSQL the server's CPU (every `postgres` process) is noted beside it.",
  );
  if (STORES.includes("sqlite")) {
    const [ourRuns, zodRuns, floorRuns] = await bestOfRounds(RUNS, [
      () => sqliteReceiver(),
      () =>
        ours("ours: Receiver + sqliteStore, zod schema", sqliteTarget(), {
          schema: zodSchema,
          onPostgres: false,
        }),
      () => sqliteFloor(),
    ]);
    report(
      "Receiving on SQLite: memory queue → store → subscriber, events end to end",
      [ourRuns!.best, zodRuns!.best, floorRuns!.best],
      floorRuns!.best.name,
    );
    goals("Receiving on SQLite", GOAL_RATE.sqlite, [{ ours: ourRuns!, floor: floorRuns! }]);
  }
  if (STORES.includes("postgres")) {
    console.log(`\nPostgreSQL server: ${await postgresSettings()}`);
    const [ourRuns, ourTwoRuns, floorRuns, floorTwoRuns] = await bestOfRounds(RUNS, [
      async () => ours("ours: Receiver + postgresStore", await postgresTarget(), { onPostgres: true }),
      async () =>
        ours("ours: 2 Receivers + postgresStore, concurrent", await postgresTarget(), {
          receivers: 2,
          onPostgres: true,
        }),
      () => postgresFloor(1),
      () => postgresFloor(2),
    ]);
    report(
      "Receiving on PostgreSQL: memory queue → store → subscriber, events end to end",
      [ourRuns!.best, ourTwoRuns!.best, floorRuns!.best, floorTwoRuns!.best],
      floorRuns!.best.name,
    );
    goals("Receiving on PostgreSQL", GOAL_RATE.postgres, [
      { ours: ourRuns!, floor: floorRuns! },
      { ours: ourTwoRuns!, floor: floorTwoRuns! },
    ]);
  }
}
