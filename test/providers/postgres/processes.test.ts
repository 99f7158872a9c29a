// Several OS processes on one PostgreSQL schema: receivers never share a message or a session,
// a send in one process wakes a receive waiting in another, and neither SIGKILL nor connections
// cut by the server lose an acknowledged send or bring back an acknowledged complete.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ClientMetrics, createClient, type QueueClient } from "../../../src/index.js";
import type { JsonLinesChild } from "../../support/json-lines-child.js";
import { drainAfterLocks, type LedgerTarget, readLedger } from "../../support/ledger.js";
import { ledgerAcrossKills, sessionHeldAcrossProcesses } from "../../support/process-cases.js";
import { POSTGRES_URL, useSchema } from "./database.js";
import { backendsOf, startChild, terminateMidStatement } from "./fixtures/processes.js";

const schema = useSchema();
const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 2 });
const directory = mkdtempSync(join(tmpdir(), "queue-runtime-postgres-processes-"));
let client: QueueClient;
beforeAll(async () => {
  client = await createClient({ provider: { type: "postgres", connectionString: POSTGRES_URL, schema } });
});
afterAll(async () => {
  await client.close();
  await pool.end();
  rmSync(directory, { recursive: true, force: true });
});

// A test that fails half way must not leave its processes running (nor connected to the schema it drops).
const children: JsonLinesChild[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.kill()));
});

/** The application_name of child `role`: unique to this file, so that its connections can be told apart. */
const nameOf = (role: string) => `${schema}-${role}`;

/** Starts a child as `role` in `mode` with `args`, killed after the test if still running. */
async function spawn(role: string, mode: string, args: readonly string[]): Promise<JsonLinesChild> {
  const child = await startChild(schema, nameOf(role), mode, args);
  children.push(child);
  return child;
}

/** Waits until `done` holds, checking every 20 ms for up to `timeoutMs`; throws naming `what` otherwise. */
async function waitFor(
  what: string,
  done: () => Promise<boolean> | boolean,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/** The values seen more than once. */
function repeated(values: readonly string[]): string[] {
  const seen = new Set<string>();
  return values.filter((value) => seen.has(value) || !seen.add(value));
}

/** The bodies stored on `queue` of this schema, locked messages included. */
async function storedKeys(queue: string): Promise<Set<string>> {
  const found = await pool.query<{ key: string }>(
    `SELECT convert_from(m.body, 'UTF8') AS key FROM "${schema}".messages m
     JOIN "${schema}".queues q ON q.id = m.queue_id WHERE q.name = $1`,
    [queue],
  );
  return new Set(found.rows.map((row) => row.key));
}

/** The ledger test's view of `queue`: children by application_name, killed writes waited out on the server. */
function ledgerOn(queue: string, lockMs: number): LedgerTarget {
  return {
    file: join(directory, `${queue}.log`),
    queue,
    lockMs,
    start: (worker, mode, args) => spawn(`${queue}-${worker}`, mode, args),
    // A statement under way when its process dies still commits on the server: wait for its backend to end.
    afterKill: (worker) =>
      waitFor(
        `the backends of ${worker} to end`,
        async () => (await backendsOf(pool, nameOf(`${queue}-${worker}`))).length === 0,
      ),
    storedKeys: () => storedKeys(queue),
  };
}

interface Hold {
  readonly kind: "R" | "C";
  readonly session: string;
  readonly key: string;
}

/** The fifo-drain children's shared file: R when a message was received, C before it was completed. */
function readHolds(file: string): Hold[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => {
      const [kind, session, key] = line.split(" ");
      return { kind: kind as Hold["kind"], session: session!, key: key! };
    });
}

/** The keys received while another message of their session was held (by any process). */
function overlappingHolds(holds: readonly Hold[]): string[] {
  const held = new Map<string, string>();
  const overlapping: string[] = [];
  for (const { kind, session, key } of holds) {
    if (kind === "C") held.delete(session);
    else if (held.has(session)) overlapping.push(`${key} while ${held.get(session)}`);
    else held.set(session, key);
  }
  return overlapping;
}

describe("several processes on one PostgreSQL schema", () => {
  it("three processes draining 3,000 messages at once receive and complete each exactly once", async () => {
    await client.admin.createQueue("shared");
    const keys = Array.from({ length: 3_000 }, (_, i) => `m-${i}`);
    await client.sendMessages("shared", keys);
    // Each takes at most 1,200 of the 3,000, so each gets some whichever runs faster.
    const drainers = await Promise.all(
      ["d1", "d2", "d3"].map((role) => spawn(role, "drain", ["shared", "1200"])),
    );
    await Promise.all(drainers.map((child) => child.event("ready")));
    for (const child of drainers) child.tell();
    const taken = await Promise.all(
      drainers.map(async (child) => (await child.event("keys", 60_000)).keys as string[]),
    );
    for (const keysOfOne of taken) expect(keysOfOne.length).toBeGreaterThan(0);
    expect(repeated(taken.flat()), "messages received by two processes or twice").toEqual([]);
    expect(taken.flat().sort()).toEqual([...keys].sort());
    expect(await client.admin.getQueueStats("shared")).toMatchObject({ active: 0, inFlight: 0, delayed: 0 });
  }, 60_000);

  it("a session held by one process is refused to another by name, passed over by an accept of any, and free once closed", async () => {
    await sessionHeldAcrossProcesses(client, spawn);
  }, 30_000);

  it("two processes receiving from a FIFO queue never hold two messages of one session at once", async () => {
    await client.admin.createQueue("groups.fifo", { requiresSession: true });
    const sessions = ["s0", "s1", "s2", "s3", "s4", "s5"];
    // Each session's messages one after another: without the session's lock, both processes would take
    // neighbouring messages of one session.
    const messages = sessions.flatMap((session) =>
      Array.from({ length: 40 }, (_, i) => ({
        body: `${session}-${String(i).padStart(2, "0")}`,
        sessionId: session,
      })),
    );
    await client.sendMessages("groups.fifo", messages);
    const file = join(directory, "holds.log");
    // Each takes at most 160 of the 240, so both take some.
    const drainers = await Promise.all(
      ["f1", "f2"].map((role) => spawn(role, "fifo-drain", ["groups.fifo", file, "160"])),
    );
    await Promise.all(drainers.map((child) => child.event("ready")));
    for (const child of drainers) child.tell();
    const taken = await Promise.all(
      drainers.map(async (child) => (await child.event("keys", 60_000)).keys as string[]),
    );
    for (const keysOfOne of taken) expect(keysOfOne.length).toBeGreaterThan(0);
    expect(taken.flat().sort()).toEqual(messages.map((message) => message.body).sort());
    const holds = readHolds(file);
    expect(overlappingHolds(holds), "a session's messages were held at once").toEqual([]);
    for (const session of sessions) {
      const order = holds
        .filter((hold) => hold.kind === "R" && hold.session === session)
        .map((hold) => hold.key);
      expect(order, `session ${session} out of order`).toEqual([...order].sort());
    }
  }, 60_000);

  it("a receive waiting in another process wakes within 50 ms of a send resolving", async () => {
    const rounds = 3;
    await client.admin.createQueue("wake");
    const waiter = await spawn("waiter", "wait", ["wake", String(rounds)]);
    // The child listens from its first wait on: a send before that would be found by looking, not woken for.
    await waitFor("the waiting child to listen", async () =>
      (await backendsOf(pool, nameOf("waiter"))).some((backend) => backend.query.startsWith("LISTEN")),
    );
    for (let round = 0; round < rounds; round++) {
      await waiter.event("waiting", 20_000, round);
      // At a random moment of the wait, so that its fallback poll (each second) cannot pass for a wake-up every round.
      await sleep(100 + Math.random() * 600);
      await client.sendMessage("wake", `hello ${round}`);
      const sentAt = Date.now();
      const { receivedAt, body } = await waiter.event("receivedAt", 20_000, round);
      expect(body).toBe(`hello ${round}`);
      // Both instants are Date.now() of one machine, so they compare across processes.
      expect((receivedAt as number) - sentAt).toBeLessThan(50);
    }
    expect(await waiter.exit()).toBe(0);
  }, 30_000);

  it("keeps every acknowledged send and complete across 20 kills at random moments", async () => {
    await ledgerAcrossKills(client, ledgerOn("ledger", 500));
  }, 60_000);

  it("a process whose connections the server cuts keeps going, and completes every message exactly once", async () => {
    const lockMs = 1_000;
    await client.admin.createQueue("cut", { lockDurationMs: lockMs, maxDeliveryCount: null });
    const target = ledgerOn("cut", lockMs);
    const worker = await target.start("w", "ledger", [target.file, "w", target.queue]);
    await worker.event("ready");
    const completed = () => readLedger(target.file).completed.size;
    for (let cut = 0; cut < 8; cut++) {
      const before = completed();
      await waitFor(`completes before cut ${cut}`, () => completed() > before);
      await waitFor(
        `cut ${cut} to meet a statement under way`,
        async () => (await terminateMidStatement(pool, nameOf("cut-w"))) > 0,
      );
    }
    const cutAt = completed();
    await waitFor("completes after the last cut", () => completed() > cutAt);
    worker.tell("stop");
    const { stopped } = (await worker.event("stopped", 30_000)) as { stopped: ClientMetrics };
    expect(await worker.exit()).toBe(0);
    // The cuts reached the application only as retries of ConnectionFailed, never as a failed send or receive.
    const retried = worker.events("retried").map((event) => event.retried);
    expect(retried.length).toBeGreaterThan(0);
    expect(new Set(retried)).toEqual(new Set(["ConnectionFailed"]));
    expect(Object.keys(stopped.errors).filter((code) => code !== "InvalidReceipt")).toEqual([]);
    // A complete cut after its commit is retried and answers InvalidReceipt: then it may be gone without a C line.
    const ledger = readLedger(target.file);
    expect([...ledger.failed.values()].filter((code) => code !== "InvalidReceipt")).toEqual([]);
    expect(
      [...ledger.completing].filter((key) => !ledger.completed.has(key) && !ledger.failed.has(key)),
    ).toEqual([]);
    await drainAfterLocks(target);
  }, 60_000);
});
