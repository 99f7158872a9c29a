import { afterAll, beforeAll } from "vitest";
import { MemoryStore } from "../../../src/engine/memory/memory-store.js";
import { QueueEngine } from "../../../src/engine/queue-engine.js";
import { SqsServer } from "../../../src/server/sqs/sqs-server.js";

/** The key pair the test server checks signatures against. */
export const CREDENTIALS = { accessKeyId: "AKIDPROVIDER", secretAccessKey: "provider-test-secret" };

/** An SQS-compatible server on a free port with an in-memory engine, for the tests of one file. */
export function useSqsServer(): { endpoint: () => string; engine: () => QueueEngine } {
  let server: SqsServer | undefined;
  let engine: QueueEngine | undefined;
  beforeAll(async () => {
    engine = new QueueEngine(new MemoryStore(), { createQueues: false });
    server = await SqsServer.start({ engine, port: 0, credentials: CREDENTIALS });
  });
  afterAll(async () => {
    await server?.close();
    engine?.close();
  });
  return { endpoint: () => server!.endpoint, engine: () => engine! };
}
