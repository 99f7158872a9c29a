// Receivers in separate OS processes on one store (a SQLite file, a PostgreSQL schema): copies of a
// message raced by two processes keep one event, deliveries are claimed by one worker each, and a
// receiver killed with SIGKILL at random moments loses nothing and keeps nothing twice.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createClient, type QueueClient } from "../../src/index.js";
import { type MessageOutcome, Receiver, type ReceiverMetrics } from "../../src/receiving/index.js";
import { type ChildConfig, OrderPlaced, orderBody, orderIds, QUEUE, SUBSCRIBER } from "./fixtures/orders.js";
import {
  exited,
  type LedgerLine,
  type ReceiverChild,
  readLedger,
  startReceiver,
  waitFor,
} from "./fixtures/processes.js";
import { STORE_KINDS, type TestStore } from "./stores.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-receiving-processes-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

let files = 0;
const file = (name: string) => join(directory, `${name}-${++files}`);

// A test that fails half way must not leave its processes running.
const children: ReceiverChild[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.kill()));
});

async function spawnReceiver(config: ChildConfig): Promise<ReceiverChild> {
  const child = await startReceiver(config);
  children.push(child);
  return child;
}

/** Two receivers "a" and "b" of one config, started together: both ready, then both told `go` at once. */
async function startPair(config: Omit<ChildConfig, "worker">): Promise<ReceiverChild[]> {
  const pair = await Promise.all([
    spawnReceiver({ ...config, worker: "a" }),
    spawnReceiver({ ...config, worker: "b" }),
  ]);
  await Promise.all(pair.map((child) => child.event("ready")));
  for (const child of pair) child.tell("go");
  return pair;
}

/** A SQLite queue file holding `bodies` on the `orders` queue, in order, and a client on it. */
async function queueFile(bodies: readonly string[], lockDurationMs?: number) {
  const path = file("queue.db");
  const client = await createClient({
    provider: { type: "sqlite", path, ...(lockDurationMs === undefined ? {} : { lockDurationMs }) },
  });
  await client.sendMessages(QUEUE, bodies);
  return { path, client };
}

async function queueIsEmpty(client: QueueClient): Promise<boolean> {
  const stats = await client.admin.getQueueStats(QUEUE);
  return stats.active === 0 && stats.inFlight === 0 && stats.delayed === 0;
}

async function count(db: TestStore, table: string): Promise<number> {
  const [row] = await db.query(`SELECT count(*) AS n FROM qr_${table}`);
  return Number(row!.n);
}

async function recordedIds(db: TestStore): Promise<string[]> {
  const rows = await db.query("SELECT id FROM qr_received_events WHERE queue = ?", [QUEUE]);
  return rows.map((row) => String(row.id)).sort();
}

/** How many ledger lines each key has. */
function tally(lines: readonly LedgerLine[], key: (line: LedgerLine) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of lines) counts.set(key(line), (counts.get(key(line)) ?? 0) + 1);
  return counts;
}

/** The keys seen other than exactly once. */
function notOnce(counts: Map<string, number>): [string, number][] {
  return [...counts].filter(([, n]) => n !== 1);
}

const sorted = (values: Iterable<string>) => [...values].sort();

/** Tells `stop` and resolves what the child reported as it stopped, once it has exited. */
async function stop(child: ReceiverChild): Promise<{ metrics: ReceiverMetrics; errors: string[] }> {
  child.tell("stop");
  const report = await child.event("stopped", 30_000);
  await exited(child);
  return report as unknown as { metrics: ReceiverMetrics; errors: string[] };
}

describe.each(STORE_KINDS)("receivers in separate processes on $name", (kind) => {
  it("two receivers (two processes) handed two copies of one message at once keep exactly one event", async () => {
    const db = await kind.make();
    const ledger = file("ledger.log");
    const ids = orderIds("race", 200);
    // Both hand the same batches of 10 in the same order, so each batch meets its copy in the other process.
    const config = { mode: "batch", store: kind.name, location: db.location, ledger, ids } as const;
    const racers = await startPair(config);
    const reports = (await Promise.all(
      racers.map((child) => child.event("outcomes", 60_000)),
    )) as unknown as {
      outcomes: [string, MessageOutcome][];
      errors: string[];
    }[];
    await Promise.all(racers.map(exited));

    expect(reports.flatMap((report) => report.errors)).toEqual([]);
    const outcomes = reports.flatMap((report) => report.outcomes);
    expect(outcomes).toHaveLength(2 * ids.length);
    expect(outcomes.filter(([, outcome]) => outcome !== "kept" && outcome !== "repeat")).toEqual([]);
    expect(outcomes.filter(([, outcome]) => outcome === "kept")).toHaveLength(ids.length);
    // Each id is kept by one process and a repeat in the other.
    const byId = new Map<string, MessageOutcome[]>();
    for (const [id, outcome] of outcomes) byId.set(id, [...(byId.get(id) ?? []), outcome]);
    expect([...byId].filter(([, both]) => sorted(both).join() !== "kept,repeat")).toEqual([]);

    expect(await recordedIds(db)).toEqual(sorted(ids));
    const lines = readLedger(ledger);
    expect(notOnce(tally(lines, (line) => line.eventId))).toEqual([]);
    expect(sorted(new Set(lines.map((line) => line.eventId)))).toEqual(sorted(ids));
    // Each receiveBatch ran the deliveries due after it: none is left, and no outbox row either.
    expect(await count(db, "deliveries")).toBe(0);
    expect(await count(db, "outbox")).toBe(0);
  }, 60_000);

  it("two receivers (two processes) draining a queue that holds every message twice keep exactly one event per id", async () => {
    const db = await kind.make();
    const ledger = file("ledger.log");
    const ids = orderIds("copy", 200);
    // Every group of ten ids is sent twice in a row, so the two copies are in adjacent batches:
    // one process tends to read the first while the other reads the second.
    const bodies: string[] = [];
    for (let start = 0; start < ids.length; start += 10) {
      const group = ids.slice(start, start + 10).map(orderBody);
      bodies.push(...group, ...group);
    }
    const queue = await queueFile(bodies);
    const config = {
      mode: "run",
      store: kind.name,
      location: db.location,
      ledger,
      queueFile: queue.path,
      intervalMs: 10,
    } as const;
    const receivers = await startPair(config);
    await waitFor(
      "the queue to be drained and every delivery run",
      async () =>
        (await queueIsEmpty(queue.client)) &&
        (await count(db, "deliveries")) === 0 &&
        (await count(db, "outbox")) === 0,
    );
    const reports = await Promise.all(receivers.map(stop));

    expect(reports.flatMap((report) => report.errors)).toEqual([]);
    const metrics = reports.map((report) => report.metrics);
    // Both took part: each read some of the copies.
    for (const taken of metrics) expect(taken.received).toBeGreaterThan(0);
    expect(metrics.reduce((sum, taken) => sum + taken.kept, 0)).toBe(ids.length);
    expect(metrics.reduce((sum, taken) => sum + taken.parked, 0)).toBe(0);
    expect(metrics.reduce((sum, taken) => sum + taken.repeats, 0)).toBeGreaterThanOrEqual(ids.length);
    expect(await recordedIds(db)).toEqual(sorted(ids));
    const lines = readLedger(ledger);
    expect(notOnce(tally(lines, (line) => line.eventId))).toEqual([]);
    expect(sorted(new Set(lines.map((line) => line.eventId)))).toEqual(sorted(ids));
    expect(await queue.client.admin.getQueueStats(QUEUE)).toEqual({
      active: 0,
      inFlight: 0,
      delayed: 0,
      deadLettered: 0,
    });
    await queue.client.close();
  }, 60_000);

  it("subscribers' deliveries are claimed so that no two workers run the same delivery", async () => {
    const db = await kind.make();
    const ledger = file("ledger.log");
    const ids = orderIds("claim", 1_000);
    // Kept here with their deliveries written, none run: the two processes find them all due.
    const keeper = new Receiver({
      store: db.store,
      queues: [{ name: QUEUE, idAt: "id", events: [OrderPlaced] }],
      subscribers: [
        {
          name: SUBSCRIBER,
          events: [OrderPlaced],
          handle() {
            throw new Error("the test process runs no delivery");
          },
        },
      ],
    });
    const kept = await keeper.receiveBatch(
      QUEUE,
      ids.map((id) => ({ body: orderBody(id) })),
      { deliver: false },
    );
    expect(kept.filter((outcome) => outcome !== "kept")).toEqual([]);
    await keeper.close();
    const deliveries = (await db.query("SELECT id FROM qr_deliveries WHERE status = 'pending'")).map(
      (row) => `d-${row.id}`,
    );
    expect(deliveries).toHaveLength(ids.length);

    // Short attempts (1 ms, ten at a time) keep both processes claiming often, so that their claims
    // meet; 1,000 of them take one process 100 ms at least, so the other, told to go at the same
    // moment, claims its share.
    const config = {
      mode: "run",
      store: kind.name,
      location: db.location,
      ledger,
      handleMs: 1,
      concurrency: 10,
      intervalMs: 10,
    } as const;
    const workers = await startPair(config);
    await waitFor("every delivery to be run", async () => (await count(db, "deliveries")) === 0);
    const reports = await Promise.all(workers.map(stop));

    expect(reports.flatMap((report) => report.errors)).toEqual([]);
    const lines = readLedger(ledger);
    expect(notOnce(tally(lines, (line) => line.deliveryId))).toEqual([]);
    expect(sorted(lines.map((line) => line.deliveryId))).toEqual(sorted(deliveries));
    expect(sorted(lines.map((line) => line.eventId))).toEqual(sorted(ids));
    for (const worker of ["a", "b"])
      expect(lines.filter((line) => line.worker === worker).length).toBeGreaterThan(0);
    expect(reports.reduce((sum, report) => sum + report.metrics.delivered, 0)).toBe(ids.length);
    expect(await count(db, "deliveries")).toBe(0);
    expect(await count(db, "outbox")).toBe(0);
  }, 60_000);

  it("a receiver killed with SIGKILL mid-tick loses nothing and duplicates nothing", async () => {
    const KILLS = 5;
    const LOCK_MS = 1_000;
    const db = await kind.make();
    const ledger = file("ledger.log");
    const ids = orderIds("kill", 500);
    const queue = await queueFile(ids.map(orderBody), LOCK_MS);
    // One attempt at a time, each sleeping 5 ms: delivering the 500 events takes 2.5 s at least,
    // longer than the kills' delays together (2 s at most), so every kill lands while there is
    // work under way. Completes take 100 ms, as on a queue across a network, so that kills also
    // land between a batch's commit and its completes. Messages a killed process held come back
    // after LOCK_MS, and the deliveries it had claimed after their attempt's timeout.
    const config = {
      mode: "run",
      store: kind.name,
      location: db.location,
      ledger,
      queueFile: queue.path,
      lockDurationMs: LOCK_MS,
      completeDelayMs: 100,
      handleMs: 5,
      concurrency: 1,
      subscriberTimeoutMs: 1_000,
      intervalMs: 10,
    } as const;
    for (let kill = 0; kill < KILLS; kill++) {
      const child = await spawnReceiver({ ...config, worker: `killed-${kill}` });
      await child.event("ready");
      child.tell("go");
      await child.event("started");
      await sleep(50 + Math.random() * 350);
      await child.kill();
    }
    // The kills interrupted the work: some events had not yet been delivered.
    expect(new Set(readLedger(ledger).map((line) => line.eventId)).size).toBeLessThan(ids.length);

    const last = await spawnReceiver({ ...config, worker: "last" });
    await last.event("ready");
    last.tell("go");
    await waitFor(
      "the queue to be drained and every delivery run",
      async () =>
        (await queueIsEmpty(queue.client)) &&
        (await count(db, "deliveries")) === 0 &&
        (await count(db, "outbox")) === 0,
    );
    await stop(last);

    expect(await recordedIds(db)).toEqual(sorted(ids));
    const lines = readLedger(ledger);
    expect(sorted(new Set(lines.map((line) => line.eventId)))).toEqual(sorted(ids));
    // A subscriber may run twice for one delivery (killed between running and settling), but an
    // event never has two deliveries.
    const deliveriesOf = new Map<string, Set<string>>();
    for (const line of lines)
      deliveriesOf.set(line.eventId, (deliveriesOf.get(line.eventId) ?? new Set()).add(line.deliveryId));
    expect(
      [...deliveriesOf].filter(([, seen]) => seen.size !== 1).map(([id, seen]) => [id, [...seen]]),
    ).toEqual([]);
    expect(await queue.client.admin.getQueueStats(QUEUE)).toEqual({
      active: 0,
      inFlight: 0,
      delayed: 0,
      deadLettered: 0,
    });
    expect(await count(db, "outbox")).toBe(0);
    expect(await count(db, "deliveries")).toBe(0);
    await queue.client.close();
  }, 60_000);
});
