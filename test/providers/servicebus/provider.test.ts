import { inspect } from "node:util";
import { afterEach, describe, expect, test } from "vitest";
import type { QueueClient } from "../../../src/core/queue-client.js";
import { createClient, QueueError } from "../../../src/index.js";
import type {
  ServiceBusConnectionStringConfig,
  ServiceBusCredentialConfig,
  ServiceBusProviderConfig,
} from "../../../src/providers/servicebus/config.js";
import { DEAD_LETTER_ATTRIBUTES, DEAD_LETTER_REASONS } from "../../../src/rules/dead-letters.js";
import { rejection } from "../../../src/testing/contract/harness.js";
import { EMULATOR_KEY } from "../../server/servicebus/harness.js";
import { useServiceBusServer } from "./server.js";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy.js";

const server = useServiceBusServer();
const WRONG_KEY = "not-the-key-7f3a91";

const clients: QueueClient[] = [];
const proxies: TcpProxy[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  await Promise.allSettled(proxies.splice(0).map((proxy) => proxy.close()));
});

let queues = 0;
/** A fresh queue name for one test. */
const name = (kind = "q") => `provider-${kind}-${++queues}-${Date.now().toString(36)}`;

async function client(options: Parameters<typeof server.client>[0] = {}): Promise<QueueClient> {
  const made = await server.client(options);
  clients.push(made);
  return made;
}

/** The server's connection string with the AMQP port replaced (a proxy's) and, if asked, another key. */
function connectionStringVia(port: number, key = EMULATOR_KEY.key): string {
  return server
    .connectionString()
    .replace(/sb:\/\/localhost:\d+/, `sb://localhost:${port}`)
    .replace(/SharedAccessKey=[^;]*/, `SharedAccessKey=${key}`);
}

async function proxy(): Promise<TcpProxy> {
  const started = await startTcpProxy(Number(/sb:\/\/localhost:(\d+)/.exec(server.connectionString())![1]));
  proxies.push(started);
  return started;
}

function expectCode(error: unknown, code: string): QueueError {
  expect(error).toBeInstanceOf(QueueError);
  expect((error as QueueError).code).toBe(code);
  return error as QueueError;
}

/** Expects `createClient` to refuse a servicebus config with `Configuration`. */
async function refusedConfig(
  provider: Omit<ServiceBusConnectionStringConfig, "type"> | Omit<ServiceBusCredentialConfig, "type">,
): Promise<QueueError> {
  const config = { type: "servicebus", ...provider } as ServiceBusProviderConfig;
  return expectCode(await rejection(createClient({ provider: config })), "Configuration");
}

describe("servicebus provider: configuration", () => {
  test("a connection string that cannot be read is a Configuration error that does not quote the key", async () => {
    const error = await refusedConfig({ connectionString: `SharedAccessKey=${WRONG_KEY}` });
    expect(error.message).not.toContain(WRONG_KEY);
    await refusedConfig({ connectionString: "" });
    await refusedConfig({ connectionString: `${server.connectionString()};EntityPath=orders` });
  });

  test("a namespace needs a TokenCredential, and the management endpoint must be a URL", async () => {
    const credential = { getToken: async () => ({ token: "t", expiresOnTimestamp: Date.now() + 60_000 }) };
    await refusedConfig({ fullyQualifiedNamespace: "", credential });
    await refusedConfig({
      fullyQualifiedNamespace: "ns.servicebus.windows.net",
      credential: {} as typeof credential,
    });
    await refusedConfig({ connectionString: server.connectionString(), administrationEndpoint: "nope" });
    const made = await createClient({
      provider: { type: "servicebus", fullyQualifiedNamespace: "ns.servicebus.windows.net", credential },
    });
    expect(made.providerType).toBe("servicebus");
    await made.close();
  });

  test("the URL form servicebus:<connection string> sends and receives", async () => {
    const queue = name();
    await (await client()).admin.createQueue(queue);
    const fromUrl = await createClient(`servicebus:${server.connectionString()}`);
    clients.push(fromUrl);
    await fromUrl.sendMessage(queue, "by url");
    const message = await fromUrl.receiveMessage(queue, 1_000);
    expect(message?.text()).toBe("by url");
    await fromUrl.completeMessage(message!.receiptHandle);
  });

  test("the key appears neither in inspect nor in the error of a refused key", async () => {
    const made = await client();
    expect(inspect(made, { depth: 10, showHidden: true })).not.toContain(EMULATOR_KEY.key);
    const queue = name();
    await made.admin.createQueue(queue);
    const wrong = await createClient({
      provider: {
        type: "servicebus",
        connectionString: server
          .connectionString()
          .replace(/SharedAccessKey=[^;]*/, `SharedAccessKey=${WRONG_KEY}`),
        administrationEndpoint: server.administrationEndpoint(),
      },
      retryPolicy: { maxAttempts: 1 },
    });
    clients.push(wrong);
    const refused = expectCode(await rejection(wrong.sendMessage(queue, "x")), "Authentication");
    expect(refused.message).not.toContain(WRONG_KEY);
    expect(inspect(refused, { depth: 10 })).not.toContain(WRONG_KEY);
    const adminRefused = expectCode(await rejection(wrong.admin.listQueues()), "Authentication");
    expect(adminRefused.message).not.toContain(WRONG_KEY);
  });

  test("with createQueues a send makes its queue (a session queue when its messages have sessions); reads make none", async () => {
    const made = await client({ createQueues: true });
    const queue = name();
    expect(await made.receiveMessages(queue, 10, 0)).toEqual([]);
    expect(await made.admin.getQueue(queue)).toBeNull();
    const waiting = made.receiveMessage(queue, 5_000);
    await made.sendMessage(queue, "made");
    expect((await waiting)?.text()).toBe("made");
    expect((await made.admin.getQueue(queue))?.fifo).toBe(false);
    const sessions = name("s");
    expectCode(await rejection(made.acceptSession(sessions, undefined, 0)), "NoSessionAvailable");
    expectCode(await rejection(made.acceptSession(sessions, "a")), "QueueNotFound");
    expect(await made.admin.getQueue(sessions)).toBeNull();
    await made.sendMessage(sessions, { body: "in a session", sessionId: "a" });
    expect((await made.admin.getQueue(sessions))?.fifo).toBe(true);
    const session = await made.acceptSession(sessions, "a");
    expect((await session.receiveMessage())?.text()).toBe("in a session");
    await session.closeSession();
    expectCode(await rejection((await client()).sendMessage(name(), "x")), "QueueNotFound");
  });
});

describe("servicebus provider: Service Bus's own terms", () => {
  test("what Service Bus cannot do is refused, not dropped", async () => {
    const made = await client();
    expectCode(
      await rejection(made.admin.createQueue(name(), { deadLetterQueue: "elsewhere" })),
      "Unsupported",
    );
    expectCode(await rejection(made.admin.createQueue(name(), { defaultDelayMs: 1_000 })), "Unsupported");
    const queue = name();
    await made.admin.createQueue(queue);
    expectCode(
      await rejection(made.sendMessage(queue, { body: "x", messageId: "a", deduplicationId: "b" })),
      "Validation",
    );
    expect(await made.receiveMessage(queue)).toBeNull();
  });

  test("a deduplication id is the message id, so repeats in the window are dropped", async () => {
    const made = await client();
    const queue = name();
    await made.admin.createQueue(queue, { deduplicationWindowMs: 60_000 });
    expect(await made.sendMessage(queue, { body: "once", deduplicationId: "order-1" })).toBe("order-1");
    await made.sendMessage(queue, { body: "twice", deduplicationId: "order-1" });
    const received = await made.receiveMessages(queue, 10, 500);
    expect(received.map((message) => message.text())).toEqual(["once"]);
  });

  test("an expired message dead-lettered by the queue carries queue-runtime's reason and its source queue", async () => {
    const made = await client();
    const queue = name();
    await made.admin.createQueue(queue, { deadLetterOnExpiration: true });
    const id = await made.sendMessage(queue, { body: "stale", timeToLiveMs: 200 });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await made.receiveMessage(queue)).toBeNull();
    const deadLetterQueue = await made.admin.deadLetterQueueOf(queue);
    expect(deadLetterQueue).toBe(`${queue}/$deadletterqueue`);
    const dead = await made.receiveMessage(deadLetterQueue, 1_000);
    expect(dead?.messageId).toBe(id);
    expect(dead?.attributes[DEAD_LETTER_ATTRIBUTES.reason]).toBe(DEAD_LETTER_REASONS.expired);
    expect(dead?.attributes[DEAD_LETTER_ATTRIBUTES.sourceQueue]).toBe(queue);
  });

  test("an abandon with a delay longer than the lock keeps the message locked until the delay ends", async () => {
    const made = await client();
    const other = await client();
    const queue = name();
    await made.admin.createQueue(queue, { lockDurationMs: 1_000 });
    await made.sendMessage(queue, "later");
    const first = await made.receiveMessage(queue, 1_000);
    await made.abandonMessage(first!.receiptHandle, { delayMs: 2_500 });
    await new Promise((resolve) => setTimeout(resolve, 1_800));
    expect(await other.receiveMessage(queue)).toBeNull();
    const again = await other.receiveMessage(queue, 2_000);
    expect(again?.text()).toBe("later");
    expect(again?.deliveryCount).toBe(2);
    expect(again?.sequenceNumber).toBe(first?.sequenceNumber);
  });

  test("a session message's receipt carries its session, so another client can settle it by lock token", async () => {
    const made = await client();
    const other = await client();
    const queue = name("s");
    await made.admin.createQueue(queue, { requiresSession: true });
    await made.sendMessages(queue, [
      { body: "first", sessionId: "s" },
      { body: "second", sessionId: "s" },
    ]);
    const session = await made.acceptSession(queue, "s");
    const message = await session.receiveMessage(1_000);
    await other.completeMessage(String(message!.receiptHandle));
    expect((await session.receiveMessage(1_000))?.text()).toBe("second");
    expectCode(await rejection(session.completeMessage(message!.receiptHandle)), "InvalidReceipt");
    await session.closeSession();
  });

  test("admin: queues with their dead-letter queues listed, counts, purge, and a missing queue", async () => {
    const made = await client();
    const queue = name();
    await made.admin.createQueue(queue, {
      lockDurationMs: 5_000,
      maxDeliveryCount: 4,
      defaultTimeToLiveMs: 60_000,
    });
    const info = await made.admin.getQueue(queue);
    expect(info).toMatchObject({
      name: queue,
      lockDurationMs: 5_000,
      maxDeliveryCount: 4,
      defaultTimeToLiveMs: 60_000,
    });
    expect(await made.admin.listQueues(queue)).toEqual([queue, `${queue}/$deadletterqueue`]);
    await made.sendMessages(queue, ["a", "b", "c"]);
    await made.sendMessage(queue, { body: "later", delayMs: 60_000 });
    const stats = await made.admin.getQueueStats(queue);
    expect(stats).toEqual({ active: 3, inFlight: 0, delayed: 1, deadLettered: 0 });
    expect(await made.admin.purgeQueue(queue)).toBe(3);
    expect(await made.receiveMessage(queue)).toBeNull();
    expectCode(await rejection(made.admin.createQueue(queue)), "QueueAlreadyExists");
    await made.admin.deleteQueue(queue);
    expect(await made.admin.getQueue(queue)).toBeNull();
    expectCode(await rejection(made.admin.deleteQueue(queue)), "QueueNotFound");
    expectCode(await rejection(made.admin.deadLetterQueueOf(queue)), "QueueNotFound");
  });
});

describe("servicebus provider: the traps of the SDK", () => {
  test("connections cut under the provider are noticed: the next calls reconnect and nothing is lost", async () => {
    const cutter = await proxy();
    const made = await createClient({
      provider: {
        type: "servicebus",
        connectionString: connectionStringVia(cutter.port),
        administrationEndpoint: server.administrationEndpoint(),
      },
      // A send already on the wire when the connection goes waits for its timeout, then is tried again.
      timeouts: { operationMs: 2_000 },
    });
    clients.push(made);
    const queue = name();
    await made.admin.createQueue(queue);
    await made.sendMessages(queue, ["1", "2"]);
    const first = await made.receiveMessage(queue, 1_000);
    await made.completeMessage(first!.receiptHandle);
    cutter.cut();
    await made.sendMessage(queue, "3");
    const rest = await made.receiveMessages(queue, 10, 1_000);
    expect(rest.map((message) => message.text()).sort()).toEqual(["2", "3"]);
    for (const message of rest) await made.completeMessage(message.receiptHandle);
    cutter.cut();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await made.sendMessage(queue, "4");
    expect((await made.receiveMessage(queue, 1_000))?.text()).toBe("4");
    expect(cutter.accepted).toBe(3);
  });

  test("close() ends every link, session and connection the provider opened", async () => {
    const watched = await proxy();
    const made = await server.client({ connectionString: connectionStringVia(watched.port) });
    const queue = name();
    const sessions = name("s");
    await made.admin.createQueue(queue);
    await made.admin.createQueue(sessions, { requiresSession: true });
    await made.sendMessage(queue, "x");
    await made.sendMessage(sessions, { body: "y", sessionId: "a" });
    await made.receiveMessage(queue, 1_000);
    await made.acceptSession(sessions, "a");
    const waiting = made.receiveMessage(queue, 10_000);
    expect(watched.open).toBeGreaterThan(0);
    await made.close();
    expect(await waiting).toBeNull();
    await expect.poll(() => watched.open).toBe(0);
    // The session is free at once, and the unsettled message comes back when its lock ends.
    const next = await client();
    const taken = await next.acceptSession(sessions, "a");
    expect(taken.sessionId).toBe("a");
  });

  test("a transient failure is tried as often as the retry policy says, once per attempt: the SDK does not retry too", async () => {
    const refusing = await proxy();
    refusing.refuse(true);
    const made = await createClient({
      provider: {
        type: "servicebus",
        connectionString: connectionStringVia(refusing.port),
        administrationEndpoint: server.administrationEndpoint(),
      },
      retryPolicy: { maxAttempts: 3, initialDelayMs: 20 },
      timeouts: { operationMs: 5_000 },
    });
    clients.push(made);
    const error = await rejection(made.sendMessage(name(), "x"));
    expect(error).toBeInstanceOf(QueueError);
    expect((error as QueueError).isTransient).toBe(true);
    expect(refusing.accepted).toBe(3);
  });
});

describe("servicebus provider: a long-lived client", () => {
  // The SDK leaves an 'abort' listener on every signal it is given; handed the client's closing
  // signal, each call added one for good (Node warned at the eleventh: a leak per call).
  test("hundreds of sends, receives, peeks and counts leave no listener behind on the client's signal", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const queue = name();
      const made = await client();
      await made.admin.createQueue(queue);
      for (let round = 0; round < 40; round++) {
        await made.sendMessage(queue, { body: `m${round}` });
        const [message] = await made.receiveMessages(queue, 1, 1_000);
        await made.completeMessage(message!.receiptHandle);
        await made.admin.peekMessages(queue, 10);
        await made.admin.getQueueStats(queue);
      }
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((warning) => warning.includes("MaxListeners"))).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  }, 60_000);
});
