import { randomUUID } from "node:crypto";
import Database from "better-sqlite3";
import { Queue, Worker } from "bullmq";
import PgBoss from "pg-boss";
import { createClient } from "../src/index.js";
import { bestOf, drain, type Measurement, measure, report, temporaryFile } from "./lib.js";

const MESSAGES = Number(process.env.SQLITE_BENCH_MESSAGES ?? 100_000);
/** Anchors one at a time are slow; they run a tenth as many and are compared by rate. */
const SINGLE = Math.max(1_000, Math.floor(MESSAGES / 10));
const body = JSON.stringify({ order: 42, sku: "A-1", qty: 3 });
const POSTGRES = process.env.POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const REDIS = { host: "127.0.0.1", port: 6379 };
const QUEUE = "bench";

/**
 * Ours: each of `loops` loops sends a batch, receives up to a batch and completes what it got
 * with `Promise.all`, until `count` messages are done; with several loops their calls share commits.
 */
export async function ours(
  batch: number,
  synchronous: "NORMAL" | "FULL",
  count: number,
  loops = 1,
): Promise<Measurement> {
  const { path, remove } = temporaryFile("bench.db");
  try {
    const client = await createClient({ provider: { type: "sqlite", path, synchronous } });
    await client.admin.createQueue(QUEUE);
    const bodies = Array.from({ length: batch }, () => body);
    const shape = batch === 1 ? "one at a time" : `batches of ${batch}`;
    const name = `queue-runtime sqlite, ${shape}${loops > 1 ? `, ${loops} concurrent loops` : ""}, synchronous=${synchronous}`;
    const result = await measure(name, count, () =>
      drain(count, batch, loops, {
        send: () => (batch === 1 ? client.sendMessage(QUEUE, body) : client.sendMessages(QUEUE, bodies)),
        async receiveAndSettle() {
          const received = await client.receiveMessages(QUEUE, batch);
          await Promise.all(received.map((message) => client.completeMessage(message.receiptHandle)));
          return received.length;
        },
      }),
    );
    await client.close();
    return result;
  } finally {
    remove();
  }
}

/**
 * The floor of `ours(10, "NORMAL", count)` (the guard's; the tables leave it out): better-sqlite3
 * on the provider's own tables (made by opening it first), three BEGIN IMMEDIATE transactions per
 * batch of 10 as the provider's: insert 10 ready rows, select 10 and lock each, delete the 10 locked.
 */
export async function betterSqliteFloor(count: number): Promise<Measurement> {
  const batch = 10;
  const bodies = Array.from({ length: batch }, () => body);
  const { path, remove } = temporaryFile("floor.db");
  try {
    const client = await createClient({ provider: { type: "sqlite", path } });
    await client.admin.createQueue(QUEUE);
    await client.close();
    const db = new Database(path);
    try {
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      const queue = (db.prepare("SELECT id FROM queues WHERE name = ?").pluck().get(QUEUE) as number) ?? 0;
      const insert = db.prepare(`INSERT INTO messages (seq, queue, state, visible_at, delivery_count, payload)
        VALUES (coalesce((SELECT max(seq) FROM messages), 0) + 1, ?, 0, ?, 0, ?)`);
      const ready = db.prepare(
        `SELECT seq, payload FROM messages WHERE queue = ? AND state = 0 ORDER BY seq LIMIT ${batch}`,
      );
      const lock = db.prepare(`UPDATE messages SET state = 2, visible_at = ?, lock_token = ?,
        delivery_count = delivery_count + 1, first_delivered_at = ?, delivered_at = ? WHERE seq = ? AND queue = ?`);
      const drop = db.prepare(
        "DELETE FROM messages WHERE seq = ? AND queue = ? AND lock_token = ? AND state = 2 AND visible_at > ?",
      );
      const send = db.transaction((now: number) => {
        for (const text of bodies) insert.run(queue, now, Buffer.from(`${randomUUID()}${text}`));
      });
      const receive = db.transaction((now: number) => {
        const rows = ready.all(queue) as { seq: number; payload: Buffer }[];
        return rows.map((row) => {
          const token = randomUUID();
          lock.run(now + 30_000, token, now, now, row.seq, queue);
          return { seq: row.seq, token };
        });
      });
      const complete = db.transaction((locked: readonly { seq: number; token: string }[], now: number) => {
        for (const { seq, token } of locked) drop.run(seq, queue, token, now);
      });
      return await measure("better-sqlite3 transactions", count, () => {
        for (let done = 0; done < count; ) {
          send.immediate(Date.now());
          const locked = receive.immediate(Date.now());
          complete.immediate(locked, Date.now());
          done += locked.length;
        }
      });
    } finally {
      db.close();
    }
  } finally {
    remove();
  }
}

async function pgBoss(batch: number, count: number): Promise<Measurement> {
  const boss = new PgBoss({ connectionString: POSTGRES, schema: "queue_runtime_bench" });
  boss.on("error", () => undefined);
  await boss.start();
  await boss.deleteQueue("bench").catch(() => undefined);
  await boss.createQueue("bench");
  const result = await measure(
    `pg-boss 10 (PostgreSQL), ${batch === 1 ? "one at a time" : `batches of ${batch}`}`,
    count,
    async () => {
      for (let sent = 0; sent < count; sent += batch) {
        if (batch === 1) await boss.send("bench", { body });
        else await boss.insert(Array.from({ length: batch }, () => ({ name: "bench", data: { body } })));
        const jobs = await boss.fetch("bench", { batchSize: batch });
        await boss.complete(
          "bench",
          jobs.map((job) => job.id),
        );
      }
    },
  );
  await boss.stop({ graceful: false, wait: true });
  return result;
}

async function bullmq(batch: number, count: number): Promise<Measurement> {
  const name = `bench-${batch}`;
  const queue = new Queue(name, { connection: REDIS });
  await queue.obliterate({ force: true });
  const result = await measure(
    `BullMQ 6 (Redis), ${batch === 1 ? "one at a time" : `batches of ${batch}`}`,
    count,
    async () => {
      let completed = 0;
      const finished = new Promise<void>((resolve) => {
        const worker = new Worker(name, async () => undefined, { connection: REDIS, concurrency: batch });
        worker.on("completed", () => {
          if (++completed === count) void worker.close().then(resolve);
        });
      });
      const jobs = Array.from({ length: batch }, () => ({
        name: "m",
        data: { body },
        opts: { removeOnComplete: true },
      }));
      for (let sent = 0; sent < count; sent += batch) {
        if (batch === 1) await queue.add("m", { body }, { removeOnComplete: true });
        else await queue.addBulk(jobs);
      }
      await finished;
    },
  );
  await queue.close();
  return result;
}

/** Produce, consume and acknowledge small messages: our SQLite provider against pg-boss and BullMQ. */
export async function run(): Promise<void> {
  const batched = await bestOf(2, () => ours(10, "NORMAL", MESSAGES));
  const concurrent = await bestOf(2, () => ours(10, "NORMAL", MESSAGES, 4));
  const batchedFull = await bestOf(1, () => ours(10, "FULL", MESSAGES));
  const bossBatched = await bestOf(1, () => pgBoss(10, MESSAGES));
  const bullBatched = await bestOf(1, () => bullmq(10, MESSAGES));
  report(
    `SQLite provider vs pg-boss and BullMQ: send + receive + complete, batches of 10`,
    [batched, concurrent, batchedFull, bossBatched, bullBatched],
    batched.name,
  );
  const single = await bestOf(2, () => ours(1, "NORMAL", MESSAGES / 5));
  const singleFull = await bestOf(1, () => ours(1, "FULL", SINGLE));
  const bossSingle = await bestOf(1, () => pgBoss(1, SINGLE));
  const bullSingle = await bestOf(1, () => bullmq(1, SINGLE));
  report(
    "SQLite provider vs pg-boss and BullMQ: one message at a time",
    [single, singleFull, bossSingle, bullSingle],
    single.name,
  );
}
