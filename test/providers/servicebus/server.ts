// `queue-runtime serve --servicebus` in this process on random ports (memory store, SAS checked,
// queues only through the admin API), and queue-runtime clients of it.
import { afterAll, beforeAll } from "vitest";
import type { QueueClient } from "../../../src/core/queue-client.js";
import { MemoryStore } from "../../../src/engine/memory/memory-store.js";
import { QueueEngine } from "../../../src/engine/queue-engine.js";
import { createClient } from "../../../src/index.js";
import { ServiceBusAdminServer } from "../../../src/server/servicebus/admin/admin-server.js";
import { ServiceBusServer } from "../../../src/server/servicebus/servicebus-server.js";
import { EMULATOR_KEY } from "../../server/servicebus/harness.js";

/** A running AMQP endpoint and management API over one engine. */
export interface ServiceBusUnderTest {
  readonly engine: QueueEngine;
  /** The emulator-style connection string of the AMQP endpoint. */
  connectionString(): string;
  /** `http://127.0.0.1:<port>` of the management API. */
  administrationEndpoint(): string;
  /** A client of the `servicebus` provider on this server. */
  client(options?: { createQueues?: boolean; connectionString?: string }): Promise<QueueClient>;
}

/** Starts a server for the tests of one file, stopped after them. */
export function useServiceBusServer(): ServiceBusUnderTest {
  let engine: QueueEngine | undefined;
  let amqp: ServiceBusServer | undefined;
  let admin: ServiceBusAdminServer | undefined;
  beforeAll(async () => {
    engine = new QueueEngine(new MemoryStore(), { createQueues: false });
    amqp = await ServiceBusServer.start({ engine, port: 0, sasKey: EMULATOR_KEY, createQueues: false });
    admin = await ServiceBusAdminServer.start({ engine, host: "127.0.0.1", port: 0, sasKey: EMULATOR_KEY });
  });
  afterAll(async () => {
    await amqp?.close();
    await admin?.close();
    await engine?.close();
  });
  const under: ServiceBusUnderTest = {
    get engine() {
      if (engine === undefined) throw new Error("the Service Bus server is used outside its tests");
      return engine;
    },
    connectionString: () => amqp!.connectionString(),
    administrationEndpoint: () => `http://127.0.0.1:${admin!.port}`,
    client: (options = {}) =>
      createClient({
        provider: {
          type: "servicebus",
          connectionString: options.connectionString ?? under.connectionString(),
          administrationEndpoint: under.administrationEndpoint(),
        },
        createQueues: options.createQueues ?? false,
        retryPolicy: { maxAttempts: 2, initialDelayMs: 50 },
      }),
  };
  return under;
}
