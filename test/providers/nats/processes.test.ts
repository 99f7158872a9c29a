// Several OS processes on one NATS server: a session held by one process is refused to another,
// neither SIGKILLs of the worker nor a SIGKILL of the broker itself lose an acknowledged send or
// bring back an acknowledged complete.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ClientMetrics, QueueClient } from "../../../src/index.js";
import { queueNames } from "../../../src/providers/nats/names.js";
import { bundledScript, JsonLinesChild } from "../../support/json-lines-child.js";
import { checkLedger, drainAfterLocks, type LedgerTarget, readLedger } from "../../support/ledger.js";
import { ledgerAcrossKills, sessionHeldAcrossProcesses } from "../../support/process-cases.js";
import { deleteStreams, NATS_URL, uniquePrefix, usePrefixes } from "./broker.js";
import { OwnNatsServer } from "./fixtures/nats-server.js";

const prefixes = usePrefixes();
const prefix = prefixes.prefix("proc");
const directory = mkdtempSync(join(tmpdir(), "queue-runtime-nats-processes-"));
let client: QueueClient;
beforeAll(async () => {
  client = await prefixes.client(prefix);
});
afterAll(async () => {
  await client.close();
  rmSync(directory, { recursive: true, force: true });
});

// A test that fails half way must not leave its processes running.
const children: JsonLinesChild[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.kill()));
});

/** Starts a child in `mode` against `servers` under `streamPrefix`, killed after the test if still running. */
async function spawn(
  mode: string,
  args: readonly string[],
  { servers = NATS_URL, streamPrefix = prefix, patient = false } = {},
): Promise<JsonLinesChild> {
  const url = `${servers}?streamPrefix=${streamPrefix}`;
  const script = await bundledScript(new URL("./fixtures/child.ts", import.meta.url));
  const child = new JsonLinesChild(script, [mode, url, ...args], patient ? { NATS_CHILD_PATIENT: "1" } : {});
  children.push(child);
  return child;
}

/** The bodies stored on `queue` (locked messages included), read by direct get. */
async function storedKeys(queue: string, servers = NATS_URL, streamPrefix = prefix): Promise<Set<string>> {
  const nc = await connect({ servers });
  try {
    const jsm = await jetstreamManager(nc);
    const names = queueNames(streamPrefix, queue);
    const keys = new Set<string>();
    for (let seq = 0; ; ) {
      const stored = await jsm.direct.getMessage(names.stream, { seq, next_by_subj: names.all });
      if (stored === null) return keys;
      keys.add(stored.string());
      seq = stored.seq + 1;
    }
  } finally {
    await nc.close();
  }
}

/** The ledger test's view of `queue` on `servers`: children started there, nothing to wait out after a kill. */
function ledgerOn(queue: string, lockMs: number, servers = NATS_URL, streamPrefix = prefix): LedgerTarget {
  return {
    file: join(directory, `${queue}.log`),
    queue,
    lockMs,
    start: (_worker, mode, args) => spawn(mode, args, { servers, streamPrefix, patient: true }),
    // A publish or an ack JetStream had not answered when its process died is simply not done.
    afterKill: async () => undefined,
    storedKeys: () => storedKeys(queue, servers, streamPrefix),
  };
}

describe("several processes on one NATS server", () => {
  it("a session held by one process is refused to another by name, passed over by an accept of any, and free once closed", async () => {
    await sessionHeldAcrossProcesses(client, (_role, mode, args) => spawn(mode, args));
  }, 30_000);

  it("keeps every acknowledged send and complete across 20 kills at random moments", async () => {
    await ledgerAcrossKills(client, ledgerOn("ledger", 500));
  }, 90_000);
});

describe("a broker killed and started again under a running client", () => {
  let server: OwnNatsServer;
  const ownPrefix = uniquePrefix("restart");
  beforeAll(async () => {
    server = await OwnNatsServer.start();
  }, 20_000);
  afterAll(async () => {
    await deleteStreams([ownPrefix], server.url).catch(() => undefined);
    await server.stop();
  });

  it("loses nothing acknowledged when nats-server is SIGKILLed twice while a worker sends, receives and completes", async () => {
    const lockMs = 1_000;
    const own = await prefixes.client(ownPrefix, { servers: server.url });
    await own.admin.createQueue("restart", { lockDurationMs: lockMs, maxDeliveryCount: null });
    await own.close();
    const target = ledgerOn("restart", lockMs, server.url, ownPrefix);
    const worker = await target.start("w", "ledger", [target.file, "w", target.queue]);
    await worker.event("ready");
    const completed = () => readLedger(target.file).completed.size;
    for (let restart = 0; restart < 2; restart++) {
      const before = completed();
      await waitFor(`completes before restart ${restart}`, () => completed() > before + 10);
      await server.kill();
      // Down for a moment: the worker's calls fail with ConnectionFailed and are retried meanwhile.
      await sleep(300);
      await server.restart();
    }
    const after = completed();
    await waitFor("completes after the last restart", () => completed() > after + 10, 30_000);
    worker.tell("stop");
    const { stopped } = (await worker.event("stopped", 30_000)) as { stopped: ClientMetrics };
    expect(await worker.exit()).toBe(0);
    // The outages reached the application only as retries of ConnectionFailed (or a Timeout of a call cut off mid-way).
    const retried = new Set(worker.events("retried").map((event) => event.retried));
    expect(retried.has("ConnectionFailed")).toBe(true);
    expect([...retried].filter((code) => code !== "ConnectionFailed" && code !== "Timeout")).toEqual([]);
    expect(Object.keys(stopped.errors).filter((code) => code !== "InvalidReceipt")).toEqual([]);
    checkLedger(readLedger(target.file), await target.storedKeys());
    await drainAfterLocks(target);
  }, 90_000);
});

/** Waits until `done` holds, checking every 20 ms for up to `timeoutMs`; throws naming `what` otherwise. */
async function waitFor(what: string, done: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
