// A Service Bus endpoint on a fresh engine, and the real SDK connected to it with retries short
// enough that a failure is reported in a second, not after the SDK's default three 30 s waits.
import { isServiceBusError, ServiceBusClient, type ServiceBusClientOptions } from "@azure/service-bus";
import { afterEach } from "vitest";
import { MemoryStore } from "../../../src/engine/memory/memory-store.js";
import { QueueEngine } from "../../../src/engine/queue-engine.js";
import type { QueueStore } from "../../../src/engine/store.js";
import {
  AZURE_QUEUE_DEFAULTS,
  newQueueRecord,
  type QueueDescription,
} from "../../../src/server/servicebus/queue-description.js";
import type { SasKey } from "../../../src/server/servicebus/sas.js";
import { ServiceBusServer } from "../../../src/server/servicebus/servicebus-server.js";

/** The official emulator's key, which its connection string carries. */
export const EMULATOR_KEY: SasKey = { keyName: "RootManageSharedAccessKey", key: "SAS_KEY_VALUE" };

/** Client options for tests: one quick try, a few seconds at most per operation. */
export const QUICK: ServiceBusClientOptions = {
  retryOptions: { maxRetries: 0, retryDelayInMs: 50, timeoutInMs: 5_000 },
};

/** A running endpoint, its engine, and a client of it. */
export interface Endpoint {
  readonly engine: QueueEngine;
  readonly server: ServiceBusServer;
  readonly client: ServiceBusClient;
  /** A connection string for another client, with another key if asked. */
  connectionString(key?: SasKey): string;
  /** Server-side errors reported during the test (a test that expects none checks this). */
  readonly errors: unknown[];
}

const running: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop();
});

/** The ServiceBusError code `promise` rejects with, or `"no error"`. */
export async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return isServiceBusError(error) ? error.code : `not a ServiceBusError: ${String(error)}`;
  }
  return "no error";
}

/** Creates a queue as the admin API would: Azure's defaults, with `changes`. */
export function createQueue(
  engine: QueueEngine,
  name: string,
  changes: Partial<QueueDescription> = {},
): void {
  engine.insertQueue(newQueueRecord(engine, name, { ...AZURE_QUEUE_DEFAULTS, ...changes }));
}

/** Starts an endpoint on `store` (memory by default) and connects a client. */
export async function startEndpoint(
  options: {
    store?: QueueStore;
    sasKey?: SasKey | null;
    createQueues?: boolean;
    engine?: QueueEngine;
    openTimeoutMs?: number;
  } = {},
): Promise<Endpoint> {
  const engine =
    options.engine ?? new QueueEngine(options.store ?? new MemoryStore(), { createQueues: false });
  const errors: unknown[] = [];
  const sasKey = options.sasKey === undefined ? EMULATOR_KEY : options.sasKey;
  const server = await ServiceBusServer.start({
    engine,
    port: 0,
    sasKey,
    createQueues: options.createQueues ?? true,
    onError: (error) => errors.push(error),
    ...(options.openTimeoutMs === undefined ? {} : { openTimeoutMs: options.openTimeoutMs }),
  });
  const connectionString = (key: SasKey = sasKey ?? EMULATOR_KEY) =>
    server
      .connectionString()
      .replace(/SharedAccessKeyName=[^;]*/, `SharedAccessKeyName=${key.keyName}`)
      .replace(/SharedAccessKey=[^;]*/, `SharedAccessKey=${key.key}`);
  const client = new ServiceBusClient(connectionString(), QUICK);
  running.push(async () => {
    await client.close();
    await server.close();
    if (options.engine === undefined) await engine.close();
  });
  return { engine, server, client, connectionString, errors };
}
