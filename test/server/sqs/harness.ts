import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SQSClient } from "@aws-sdk/client-sqs";
import { afterAll, beforeAll, expect } from "vitest";
import { SigV4Signer } from "../../../src/aws/index.js";
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

/** A request written by hand: the path may carry a query string; a body makes it a POST unless `method` says otherwise. */
export interface HandRequest {
  readonly method?: "GET" | "POST";
  readonly path?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** An answer read whole, as text. */
export interface TextAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** The headers of `request` to `endpoint`, `host` included, with a SigV4 signature by {@link CREDENTIALS}. */
export function signedHeaders(endpoint: string, request: HandRequest): Record<string, string> {
  const url = new URL(request.path ?? "/", endpoint);
  const headers = { host: url.host, ...request.headers };
  const signed = new SigV4Signer({ region: "us-east-1", service: "sqs" }).sign(
    {
      method: methodOf(request),
      path: url.pathname,
      query: url.search.slice(1),
      headers,
      ...(request.body === undefined ? {} : { body: request.body }),
    },
    CREDENTIALS,
  );
  return { ...headers, ...signed.headers };
}

/** Sends `request` to `endpoint`, signed unless `sign` is false, and reads the answer (10 s at most). */
export async function sendRequest(endpoint: string, request: HandRequest, sign = true): Promise<TextAnswer> {
  const url = new URL(request.path ?? "/", endpoint);
  const response = await fetch(url, {
    method: methodOf(request),
    headers: sign ? signedHeaders(endpoint, request) : { host: url.host, ...request.headers },
    ...(request.body === undefined ? {} : { body: request.body }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

function methodOf(request: HandRequest): "GET" | "POST" {
  return request.method ?? (request.body === undefined ? "GET" : "POST");
}
