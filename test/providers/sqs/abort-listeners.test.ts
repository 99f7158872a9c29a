import { getEventListeners } from "node:events";
import { afterEach, describe, expect, test } from "vitest";
import type { OperationContext } from "../../../src/core/provider.js";
import { createClient, type QueueClient, type SessionClient } from "../../../src/index.js";
import { createSqsProvider, type SqsProvider } from "../../../src/providers/sqs/sqs-provider.js";
import { CREDENTIALS, useSqsServer } from "./server.js";

// Node warns at the eleventh listener of one signal; twice that many calls at once.
const CONCURRENT = 20;

const server = useSqsServer();
const closers: (() => Promise<void>)[] = [];
let queues = 0;

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A client on the sqs provider against the test server, closed after the test. */
async function client(): Promise<QueueClient> {
  const made = await createClient({
    provider: { type: "sqs", endpoint: server.endpoint(), region: "us-east-1", credentials: CREDENTIALS },
  });
  closers.push(() => made.close());
  return made;
}

/** The provider itself, without the client around it, closed after the test. */
async function provider(): Promise<SqsProvider> {
  const made = await createSqsProvider(
    { type: "sqs", endpoint: server.endpoint(), region: "us-east-1", credentials: CREDENTIALS },
    { createQueues: false },
  );
  closers.push(() => made.close());
  return made;
}

/** Runs `work` and resolves the MaxListenersExceededWarnings the process emitted meanwhile. */
async function listenerWarnings(work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const onWarning = (warning: Error) => {
    if (warning.name === "MaxListenersExceededWarning") seen.push(warning.message);
  };
  process.on("warning", onWarning);
  try {
    await work();
    // process.emitWarning reports on a later tick.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off("warning", onWarning);
  }
  return seen;
}

const times = <T>(make: () => Promise<T>) => Promise.all(Array.from({ length: CONCURRENT }, make));

describe("abort listeners of the sqs provider", () => {
  test("twenty concurrent long polls through a client, and twenty admin calls, warn of nothing", async () => {
    const sqs = await client();
    const queue = `listeners-${++queues}`;
    await sqs.admin.createQueue(queue);
    const warnings = await listenerWarnings(async () => {
      expect(await times(() => sqs.receiveMessage(queue, 1_000))).toEqual(Array(CONCURRENT).fill(null));
      // Admin calls share the provider's own closing signal.
      await times(() => sqs.admin.getQueueStats(queue));
    });
    expect(warnings).toEqual([]);
  });

  test("twenty long polls on one signal hold one listener on it, none once they end, and all end with it", async () => {
    const sqs = await provider();
    const queue = `listeners-${++queues}`;
    await sqs.admin.createQueue(queue);
    const controller = new AbortController();
    const context: OperationContext = { signal: controller.signal, timeoutMs: 5_000 };
    const warnings = await listenerWarnings(async () => {
      // Each of these asks the server for a 1 s long poll, so they all wait on the wire together.
      const polls = times(() => sqs.receiveMessages(queue, 10, 1_000, context));
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
      expect(await polls).toEqual(Array(CONCURRENT).fill([]));
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);

      const cut = times(() => sqs.receiveMessages(queue, 10, 5_000, context));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const started = Date.now();
      controller.abort();
      expect(await cut).toEqual(Array(CONCURRENT).fill([]));
      expect(Date.now() - started).toBeLessThan(1_000);
    });
    expect(warnings).toEqual([]);
  });

  test("closing a client that holds twenty sessions warns of nothing and hands their messages back", async () => {
    const sqs = await client();
    const queue = `listeners-${++queues}.fifo`;
    // Each accept hands back the other groups' messages it meets, a receive each: no redrive policy
    // to move them after ten.
    await sqs.admin.createQueue(queue, { deadLetterQueue: null });
    await sqs.sendMessages(
      queue,
      Array.from({ length: CONCURRENT }, (_, group) => ({ body: `g${group}`, sessionId: `g${group}` })),
    );
    const sessions: SessionClient[] = [];
    while (sessions.length < CONCURRENT) sessions.push(await sqs.acceptSession(queue));
    for (const session of sessions) expect(await session.receiveMessage()).not.toBeNull();
    // The releases at close all run on one context.
    const warnings = await listenerWarnings(() => sqs.close());
    expect(warnings).toEqual([]);
    const other = await client();
    const back: string[] = [];
    // SQS may answer a receive with fewer messages than are visible: ask until all came or none do.
    for (let batch = await other.receiveMessages(queue, 10, 1_000); batch.length > 0; ) {
      back.push(...batch.map((message) => message.text()));
      batch = await other.receiveMessages(queue, 10);
    }
    expect(back.sort()).toEqual(Array.from({ length: CONCURRENT }, (_, group) => `g${group}`).sort());
  });
});
