import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQSClient } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, expect } from "vitest";
import { JournalStore } from "../../../src/engine/journal/journal-store.js";
import { QueueEngine } from "../../../src/engine/queue-engine.js";
import { SqsServer } from "../../../src/server/sqs/sqs-server.js";
import { holdings } from "../../journal/holdings.js";

export const CREDENTIALS = { accessKeyId: "AKIDTEST", secretAccessKey: "test-secret" };

/**
 * A server on a free port for the tests of one file, and an SDK client for it. Its engine keeps
 * queues in a journal store, so every operation these tests drive is also written and replayed
 * there; the in-memory store is what the sqs provider's contract tests run the server on.
 */
export function useSqsServer(): {
  server: () => SqsServer;
  engine: () => QueueEngine;
  sqs: () => SQSClient;
  client: (credentials?: typeof CREDENTIALS) => SQSClient;
} {
  let server: SqsServer | undefined;
  let engine: QueueEngine | undefined;
  let sqs: SQSClient | undefined;
  const clients: SQSClient[] = [];
  const client = (credentials = CREDENTIALS) => {
    const made = new SQSClient({
      endpoint: server!.endpoint,
      region: "us-east-1",
      credentials,
      maxAttempts: 1,
    });
    clients.push(made);
    return made;
  };
  const directory = mkdtempSync(join(tmpdir(), "queue-runtime-sqs-server-"));
  const journal = join(directory, "server.journal");
  let store: JournalStore | undefined;
  beforeAll(async () => {
    store = new JournalStore(journal);
    engine = new QueueEngine(store, { createQueues: false });
    server = await SqsServer.start({ engine, port: 0, credentials: CREDENTIALS });
    sqs = client();
  });
  afterAll(async () => {
    for (const made of clients) made.destroy();
    await server?.close();
    // Whatever the file's tests did, the journal replays to exactly what the server held.
    const held = store === undefined ? [] : holdings(store);
    await engine?.close();
    const replayed = new JournalStore(journal);
    try {
      expect(holdings(replayed)).toEqual(held);
    } finally {
      replayed.close();
      rmSync(directory, { recursive: true, force: true });
    }
  });
  return { server: () => server!, engine: () => engine!, sqs: () => sqs!, client };
}

let queues = 0;
/** A queue name not used before in this process. */
export function queueName(prefix = "q", fifo = false): string {
  return `${prefix}-${process.pid}-${++queues}${fifo ? ".fifo" : ""}`;
}

/** The error a promise rejects with. */
export async function failure(
  promise: Promise<unknown>,
): Promise<
  { name: string; message: string; $metadata?: { httpStatusCode?: number } } & Record<string, unknown>
> {
  try {
    await promise;
  } catch (error) {
    return error as { name: string; message: string } & Record<string, unknown>;
  }
  throw new Error("expected the request to fail");
}
