import { SQSClient } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll } from "vitest";
import { MemoryStore } from "../../../src/engine/memory/memory-store.js";
import { QueueEngine } from "../../../src/engine/queue-engine.js";
import { SqsServer } from "../../../src/server/sqs/sqs-server.js";

export const CREDENTIALS = { accessKeyId: "AKIDTEST", secretAccessKey: "test-secret" };

/** A server on a free port with an in-memory engine for the tests of one file, and an SDK client for it. */
export function useSqsServer(): {
  server: () => SqsServer;
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
  beforeAll(async () => {
    engine = new QueueEngine(new MemoryStore(), { createQueues: false });
    server = await SqsServer.start({ engine, port: 0, credentials: CREDENTIALS });
    sqs = client();
  });
  afterAll(async () => {
    for (const made of clients) made.destroy();
    await server?.close();
    engine?.close();
  });
  return { server: () => server!, sqs: () => sqs!, client };
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
