// Several OS processes on one RabbitMQ: SIGKILL never loses an acknowledged send nor brings back an
// acknowledged complete, a broker restarted under a running client loses nothing acknowledged, and
// a session locked by one process is refused to another until it lets go.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import amqp from "amqplib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createClient, type QueueClient, QueueError } from "../../../src/index.js";
import { rejection } from "../../../src/testing/contract/harness.js";
import { bundledScript, JsonLinesChild } from "../../support/json-lines-child.js";
import { readLedger } from "../../support/ledger.js";
import { ledgerAcrossKills, sessionHeldAcrossProcesses } from "../../support/process-cases.js";
import { cleanPrefix, RABBITMQ_URL, uniquePrefix } from "./broker.js";
import { type SecondNode, startSecondNode } from "./fixtures/second-node.js";

const prefix = uniquePrefix("processes");
const directory = mkdtempSync(join(tmpdir(), "queue-runtime-rabbitmq-processes-"));
let client: QueueClient;
beforeAll(async () => {
  client = await createClient({ provider: { type: "rabbitmq", url: RABBITMQ_URL, queuePrefix: prefix } });
});
afterAll(async () => {
  await client.close();
  await cleanPrefix(prefix);
  rmSync(directory, { recursive: true, force: true });
}, 60_000);

// A test that fails half way must not leave its processes running.
const children: JsonLinesChild[] = [];
afterEach(async () => {
  await Promise.all(children.splice(0).map((child) => child.kill()));
});

/** The URL of a child: the test broker and this file's prefix. */
function childUrl(url = RABBITMQ_URL): string {
  const parsed = new URL(url);
  parsed.searchParams.set("queuePrefix", prefix);
  return parsed.toString();
}

/** Starts the child script in `mode` with `args`, killed after the test if still running. */
async function spawn(mode: string, args: readonly string[]): Promise<JsonLinesChild> {
  const script = await bundledScript(new URL("./fixtures/child.ts", import.meta.url), ["amqplib"]);
  const child = new JsonLinesChild(script, [mode, childUrl(), ...args]);
  children.push(child);
  return child;
}

/**
 * The keys on the broker queue of `queue`, taken with basic.get and all given back when the
 * connection closes. AMQP cannot read a queue without taking its messages: only at moments when no
 * other process holds any (after a kill).
 */
async function keysOnBroker(queue: string): Promise<Set<string>> {
  const connection = await amqp.connect(RABBITMQ_URL);
  try {
    const channel = await connection.createChannel();
    const keys = new Set<string>();
    for (
      let got = await channel.get(`${prefix}${queue}`);
      got !== false;
      got = await channel.get(`${prefix}${queue}`)
    )
      keys.add(got.content.toString("utf8"));
    return keys;
  } finally {
    await connection.close();
  }
}

/**
 * The keys stored on `queue`, locked ones included. The broker gives a killed process's deliveries
 * back once it notices the connection gone: the keys are read again until every key the ledger
 * still expects is there, or five seconds passed (then the ledger check names what is missing).
 */
async function storedKeys(file: string, queue: string): Promise<Set<string>> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const keys = await keysOnBroker(queue);
    const ledger = readLedger(file);
    const missing = [...ledger.sent].filter(
      (key) => !keys.has(key) && !ledger.completing.has(key) && !ledger.completed.has(key),
    );
    if (missing.length === 0 || Date.now() > deadline) return keys;
    await sleep(50);
  }
}

describe("several processes on one RabbitMQ", () => {
  it("keeps every acknowledged send and complete across 20 kills at random moments", async () => {
    const file = join(directory, "ledger.log");
    await ledgerAcrossKills(client, {
      file,
      queue: "ledger",
      lockMs: 500,
      start: (_worker, mode, args) => spawn(mode, args),
      // A killed process's socket closes with it; the broker gives its deliveries back (storedKeys waits for that).
      afterKill: async () => undefined,
      storedKeys: () => storedKeys(file, "ledger"),
    });
  }, 90_000);

  it("a session held by one process is refused to another by name, passed over by an accept of any, and free once closed", async () => {
    const after = await sessionHeldAcrossProcesses(client, (_role, mode, args) => spawn(mode, args));
    // A holder that dies lets go with its connection.
    after.process.kill("SIGKILL");
    const again = await spawn("accept", ["orders.fifo", "a"]);
    expect((await again.event("accepted", 10_000)).accepted).toBe("a");
  }, 30_000);
});

describe("a broker restarted under a running client", () => {
  let node: SecondNode;
  beforeAll(async () => {
    node = await startSecondNode();
  }, 90_000);
  afterAll(async () => {
    await node?.stop();
  }, 60_000);

  it("fails calls with ConnectionFailed while down and, once up, has lost nothing acknowledged", async () => {
    const restarted = await createClient({
      provider: { type: "rabbitmq", url: node.url, queuePrefix: prefix },
      createQueues: false,
      retryPolicy: { maxAttempts: 1 },
    });
    try {
      await restarted.admin.createQueue("restart", { lockDurationMs: 60_000 });
      const sent = await restarted.sendMessages(
        "restart",
        Array.from({ length: 20 }, (_, i) => `r-${i}`),
      );
      expect(sent).toHaveLength(20);
      const received = await restarted.receiveMessages("restart", 5);
      const completed = received.slice(0, 3);
      for (const message of completed) await restarted.completeMessage(message.receiptHandle);

      await node.stopApp();
      const down = await rejection(restarted.sendMessage("restart", "while down"));
      expect(down).toBeInstanceOf(QueueError);
      expect((down as QueueError).code).toBe("ConnectionFailed");
      expect((down as QueueError).message).toContain(`127.0.0.1:${node.port}`);
      await node.startApp();

      // The held two came back with the connection's end; the three completed ones did not.
      const bodies: string[] = [];
      for (let batch = await restarted.receiveMessages("restart", 10, 5_000); batch.length > 0; ) {
        for (const message of batch) {
          bodies.push(message.text());
          await restarted.completeMessage(message.receiptHandle);
        }
        batch = await restarted.receiveMessages("restart", 10);
      }
      const done = new Set(completed.map((message) => message.text()));
      expect(bodies.sort()).toEqual(
        Array.from({ length: 20 }, (_, i) => `r-${i}`)
          .filter((body) => !done.has(body))
          .sort(),
      );
      expect(await restarted.admin.listQueues()).toEqual(["restart", "restart-dlq"]);
    } finally {
      await restarted.close();
    }
  }, 90_000);
});
