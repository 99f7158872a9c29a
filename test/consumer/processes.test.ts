// Consumers in OS processes, on a SQLite file and on a PostgreSQL schema: a consumer killed
// mid-handler, again and again, loses no message (its locks end and the messages come again), and
// two processes consuming one session queue never run a session's messages at once or out of order.
// The children (test/support/consumer-child.ts) write a line when a handler begins (B) and one
// when it ends (E); the file's order is the order in which they did so, across processes.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type ConsumerMetrics, createClient, type QueueClient } from "../../src/index.js";
import { useSchema } from "../providers/postgres/database.js";
import { childUrl } from "../providers/postgres/fixtures/processes.js";
import { bundledScript, JsonLinesChild } from "../support/json-lines-child.js";

const schema = useSchema();
const directory = mkdtempSync(join(tmpdir(), "queue-runtime-consumer-processes-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

// A test that fails half way must not leave its processes running (nor connected to the schema it drops).
const children: JsonLinesChild[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.kill()));
});

/** Starts a consumer child in `mode` on `queue` of the store at `url`, writing its steps to `file`. */
async function spawn(mode: "consume" | "sessions", url: string, queue: string, file: string) {
  const script = await bundledScript(new URL("../support/consumer-child.ts", import.meta.url));
  const child = new JsonLinesChild(script, [mode, url, queue, file]);
  children.push(child);
  await child.event("ready");
  return child;
}

/** Stops a child's consumer and waits for the process to end; resolves what it reported. */
async function stop(child: JsonLinesChild): Promise<{ metrics: ConsumerMetrics; errors: string[] }> {
  child.tell("stop");
  const { stopped, errors } = await child.event("stopped", 40_000);
  expect(await child.exit()).toBe(0);
  return { metrics: stopped as ConsumerMetrics, errors: errors as string[] };
}

interface Step {
  readonly kind: "B" | "E";
  readonly session: string;
  readonly body: string;
  readonly pid: number;
  /** The system's monotonic clock, in ns. */
  readonly at: bigint;
}

/** The steps of the children's file, in the order they were written. */
function readSteps(file: string): Step[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => {
      const [kind, session, body, pid, at] = line.split(" ");
      return {
        kind: kind as Step["kind"],
        session: session!,
        body: body!,
        pid: Number(pid),
        at: BigInt(at!),
      };
    });
}

const ends = (file: string) => readSteps(file).filter((step) => step.kind === "E");

/** The handlers process `pid` began and never ended. */
function unended(steps: readonly Step[], pid: number): Step[] {
  const ended = new Set(
    steps.filter((step) => step.kind === "E" && step.pid === pid).map((step) => step.body),
  );
  return steps.filter((step) => step.kind === "B" && step.pid === pid && !ended.has(step.body));
}

const describeStep = ({ kind, session, body, pid }: Step) => `${kind} ${session}/${body} in ${pid}`;

/** Handlers of one session that ran at once: by the order of the lines, or by the clock. */
function overlappingHandlers(steps: readonly Step[]): string[] {
  const running = new Map<string, Step>();
  const lastEnd = new Map<string, Step>();
  const found: string[] = [];
  for (const step of steps) {
    if (step.kind === "E") {
      running.delete(step.session);
      lastEnd.set(step.session, step);
      continue;
    }
    const other = running.get(step.session);
    if (other !== undefined) found.push(`${describeStep(step)} while ${describeStep(other)} ran`);
    const end = lastEnd.get(step.session);
    if (end !== undefined && end.at > step.at)
      found.push(`${describeStep(step)} before ${describeStep(end)} by the clock`);
    running.set(step.session, step);
  }
  return found;
}

/** Messages of `queue` left anywhere: ready, locked, delayed or dead-lettered. */
async function leftOn(client: QueueClient, queue: string): Promise<number> {
  const stats = await client.admin.getQueueStats(queue);
  return stats.active + stats.inFlight + stats.delayed + stats.deadLettered;
}

const stores = [
  { name: "SQLite", url: `sqlite:${join(directory, "queues.db")}` },
  { name: "PostgreSQL", url: childUrl(schema, "consumer-processes") },
];

describe.each(stores)("consumers in several processes on $name", ({ name, url }) => {
  let client: QueueClient;
  beforeAll(async () => {
    client = await createClient(url);
  });
  afterAll(() => client.close());

  it("loses no message when its process is killed mid-handler, four times over", async () => {
    const queue = "killed";
    // A short lock, so that the messages a killed process held come back soon.
    await client.admin.createQueue(queue, { lockDurationMs: 1_000 });
    const keys = Array.from({ length: 200 }, (_, i) => `k${String(i).padStart(3, "0")}`);
    await client.sendMessages(queue, keys);
    const file = join(directory, `${name}-killed.log`);
    const cutShort: Step[] = [];
    for (let kill = 0; kill < 4; kill++) {
      const child = await spawn("consume", url, queue, file);
      const pid = child.process.pid!;
      // Killed once it has handled a few, at a moment it runs a handler: whatever the machine's
      // speed, the kill then most likely cuts that handler short.
      await expect
        .poll(
          () => {
            const steps = readSteps(file);
            const handled = steps.filter((step) => step.kind === "E" && step.pid === pid).length;
            return handled > 5 && unended(steps, pid).length > 0;
          },
          { timeout: 30_000, interval: 5 },
        )
        .toBe(true);
      await child.kill();
      cutShort.push(...unended(readSteps(file), pid));
    }
    expect(cutShort.length, "no kill landed mid-handler").toBeGreaterThan(0);

    // The last process finds every message the killed ones held once their locks end.
    const drainer = await spawn("consume", url, queue, file);
    await expect.poll(() => leftOn(client, queue), { timeout: 30_000, interval: 50 }).toBe(0);
    const { metrics, errors } = await stop(drainer);
    expect(errors).toEqual([]);
    expect(metrics).toMatchObject({ failed: 0, locksLost: 0, deadLettered: 0 });
    const handled = new Set(ends(file).map((step) => step.body));
    expect(
      keys.filter((key) => !handled.has(key)),
      "messages never handled",
    ).toEqual([]);
    expect(await client.admin.getQueueStats(queue)).toEqual({
      active: 0,
      inFlight: 0,
      delayed: 0,
      deadLettered: 0,
    });
  }, 60_000);

  it("two processes run each session's messages one at a time, in order", async () => {
    const queue = "sessions.fifo";
    await client.admin.createQueue(queue, { requiresSession: true });
    const sessions = Array.from({ length: 10 }, (_, i) => `s${i}`);
    /** Messages `from` to `from + 9` of every session, each session's in order. */
    const sendWave = (from: number) =>
      client.sendMessages(
        queue,
        Array.from({ length: 10 }, (_, i) =>
          sessions.map((sessionId) => ({ body: String(from + i), sessionId })),
        ).flat(),
      );
    const file = join(directory, `${name}-sessions.log`);
    // The first process takes every session; the second then takes some of them from it, so that
    // a session runs in both processes.
    const first = await spawn("sessions", url, queue, file);
    await sendWave(0);
    await expect.poll(() => ends(file).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(100);
    const second = await spawn("sessions", url, queue, file);
    await sendWave(10);
    await expect.poll(() => ends(file).length, { timeout: 30_000 }).toBeGreaterThanOrEqual(200);
    for (const { metrics, errors } of await Promise.all([stop(first), stop(second)])) {
      expect(errors).toEqual([]);
      expect(metrics).toMatchObject({ failed: 0, locksLost: 0 });
    }

    const steps = readSteps(file);
    for (const session of sessions) {
      const order = steps
        .filter((step) => step.kind === "B" && step.session === session)
        .map((step) => step.body);
      expect(order, `session ${session} handled out of order or more than once`).toEqual(
        Array.from({ length: 20 }, (_, i) => String(i)),
      );
    }
    expect(overlappingHandlers(steps), "a session's handlers ran at once").toEqual([]);
    const sessionsOf = (pid: number | undefined) =>
      new Set(steps.filter((step) => step.pid === pid).map((step) => step.session));
    expect(sessionsOf(first.process.pid).size).toBeGreaterThan(0);
    // Every session ran in the first process, so each the second one ran moved between processes.
    expect(sessionsOf(second.process.pid).size, "the second process ran no session").toBeGreaterThan(0);
    expect(await leftOn(client, queue)).toBe(0);
  }, 60_000);
});
