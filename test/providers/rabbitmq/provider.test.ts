import { createServer } from "node:net";
import { afterAll, describe, expect, test } from "vitest";
import type { QueueClient } from "../../../src/core/queue-client.js";
import { createClient, parseQueueUrl, QueueError } from "../../../src/index.js";
import { rabbitMqCapabilities } from "../../../src/providers/rabbitmq/rabbitmq-provider.js";
import { DEAD_LETTER_ATTRIBUTES, DEAD_LETTER_REASONS } from "../../../src/rules/dead-letters.js";
import { rejection } from "../../../src/testing/contract/harness.js";
import { startTcpProxy } from "../servicebus/tcp-proxy.js";
import { cleanPrefix, RABBITMQ_URL, uniquePrefix } from "./broker.js";

const prefix = uniquePrefix("provider");
const other = uniquePrefix("provider-other");
const clients: QueueClient[] = [];
afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await cleanPrefix(prefix);
  await cleanPrefix(other);
}, 60_000);

/** A client of this file's prefix (or another), closed after the file. */
async function client(
  options: { prefix?: string; url?: string; maxAttempts?: number } = {},
): Promise<QueueClient> {
  const made = await createClient({
    provider: { type: "rabbitmq", url: options.url ?? RABBITMQ_URL, queuePrefix: options.prefix ?? prefix },
    createQueues: false,
    ...(options.maxAttempts === undefined ? {} : { retryPolicy: { maxAttempts: options.maxAttempts } }),
  });
  clients.push(made);
  return made;
}

function expectCode(error: unknown, code: string): QueueError {
  expect(error).toBeInstanceOf(QueueError);
  expect((error as QueueError).code).toBe(code);
  return error as QueueError;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("rabbitmq provider", () => {
  test("the URL form takes queue-runtime's options out of the query and leaves the rest to amqplib", () => {
    const config = parseQueueUrl(
      "amqp://guest:guest@127.0.0.1:5672/%2F?queueType=quorum&lockDurationMs=500&queuePrefix=app.&prefetch=5&heartbeat=10&operationMs=2000",
    );
    expect(config.provider).toEqual({
      type: "rabbitmq",
      queueType: "quorum",
      lockDurationMs: 500,
      queuePrefix: "app.",
      prefetch: 5,
      url: "amqp://guest:guest@127.0.0.1:5672/%2F?heartbeat=10",
    });
    expect(config.timeouts).toEqual({ operationMs: 2000 });
    expect(parseQueueUrl("amqps://broker.example/vhost").provider).toMatchObject({
      type: "rabbitmq",
      url: "amqps://broker.example/vhost",
    });
    for (const bad of ["amqp://", "amqp://host?lockDurationMs=soon", "amqp://host?createQueues=perhaps"])
      expectCode(
        rejectionSync(() => parseQueueUrl(bad)),
        "Configuration",
      );
  });

  test("options the broker cannot honour are Configuration errors naming them", async () => {
    const refused = async (provider: Record<string, unknown>, name: string) => {
      const error = expectCode(
        await rejection(createClient({ provider: { type: "rabbitmq", url: RABBITMQ_URL, ...provider } })),
        "Configuration",
      );
      expect(error.message).toContain(name);
    };
    await refused({ queueType: "classic" }, "queueType");
    await refused({ deduplicationWindowMs: 60_000 }, "deduplicationWindowMs");
    await refused({ prefetch: 0 }, "prefetch");
    await refused({ url: "http://127.0.0.1" }, "url");
  });

  test("capabilities say what RabbitMQ carries: sessions, dead letters, delays, time to live, redrive, topics with correlation filters; no peek, no locked count", async () => {
    const made = await client();
    expect(made.providerType).toBe("rabbitmq");
    expect(made.capabilities).toEqual(rabbitMqCapabilities(1_048_576));
    expect(made.capabilities).toMatchObject({
      sessions: "native",
      sessionState: true,
      deadLetter: "native",
      delayedDelivery: true,
      timeToLive: true,
      redrive: true,
      lockRenewal: true,
      peek: false,
      lockedCount: false,
      topics: true,
      filters: ["correlation"],
    });
  });

  test("a queue prefix namespaces every broker object: two prefixes share names and nothing else", async () => {
    const mine = await client();
    const theirs = await client({ prefix: other });
    await mine.admin.createQueue("shared");
    await theirs.admin.createQueue("shared");
    await theirs.admin.createQueue("theirs-only");
    await mine.sendMessage("shared", "for me");
    expect(await mine.admin.listQueues()).toEqual(["shared", "shared-dlq"]);
    expect(await theirs.admin.listQueues()).toEqual([
      "shared",
      "shared-dlq",
      "theirs-only",
      "theirs-only-dlq",
    ]);
    expect(await theirs.receiveMessage("shared")).toBeNull();
    expect((await mine.receiveMessage("shared"))?.text()).toBe("for me");
    expectCode(await rejection(mine.sendMessage("theirs-only", "x")), "QueueNotFound");
  });

  test("the provider ends a lock itself: the message comes back and a late settle is InvalidReceipt, here and from another client", async () => {
    const receiver = await client();
    const settler = await client();
    await receiver.admin.createQueue("short-lock", { lockDurationMs: 300 });
    await receiver.sendMessage("short-lock", "slow");
    const first = await receiver.receiveMessage("short-lock");
    expect(first?.deliveryCount).toBe(1);
    const again = await settler.receiveMessage("short-lock", 5_000);
    expect(again?.text()).toBe("slow");
    expect(again?.deliveryCount).toBe(2);
    expectCode(await rejection(receiver.completeMessage(first!.receiptHandle)), "InvalidReceipt");
    expectCode(await rejection(settler.completeMessage(String(first!.receiptHandle))), "InvalidReceipt");
    await receiver.completeMessage(String(again!.receiptHandle));
    expect(await settler.receiveMessage("short-lock")).toBeNull();
  });

  test("what the broker dead-letters itself carries the reason attributes: delivery limit and expiry", async () => {
    const made = await client();
    await made.admin.createQueue("poison", { maxDeliveryCount: 1 });
    const id = await made.sendMessage("poison", { body: "bad", attributes: { kind: "x" } });
    const message = await made.receiveMessage("poison");
    await made.abandonMessage(message!.receiptHandle);
    const dead = await made.receiveMessage("poison-dlq", 5_000);
    expect(dead?.messageId).toBe(id);
    expect(dead?.attributes).toMatchObject({
      kind: "x",
      [DEAD_LETTER_ATTRIBUTES.reason]: DEAD_LETTER_REASONS.maxDeliveryCount,
      [DEAD_LETTER_ATTRIBUTES.sourceQueue]: "poison",
    });
    await made.completeMessage(dead!.receiptHandle);

    await made.admin.createQueue("stale");
    const staleId = await made.sendMessage("stale", { body: "old", timeToLiveMs: 200 });
    const expired = await made.receiveMessage("stale-dlq", 10_000);
    expect(expired?.messageId).toBe(staleId);
    expect(expired?.attributes).toMatchObject({
      [DEAD_LETTER_ATTRIBUTES.reason]: DEAD_LETTER_REASONS.expired,
      [DEAD_LETTER_ATTRIBUTES.sourceQueue]: "stale",
    });
  });

  test("a broker that refuses the connection is ConnectionFailed naming its address", async () => {
    const port = await closedPort();
    const made = await client({ url: `amqp://guest:guest@127.0.0.1:${port}/%2F`, maxAttempts: 1 });
    const error = expectCode(await rejection(made.admin.listQueues()), "ConnectionFailed");
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).not.toContain("guest:guest");
    expect(error.isTransient).toBe(true);
  });

  test("close() ends a waiting receive at once with nothing", async () => {
    const made = await createClient({
      provider: { type: "rabbitmq", url: RABBITMQ_URL, queuePrefix: prefix },
      createQueues: false,
    });
    await made.admin.createQueue("waited-on");
    const begun = Date.now();
    const waiting = made.receiveMessages("waited-on", 5, 20_000);
    await made.receiveMessage("waited-on", 200);
    await made.close();
    expect(await waiting).toEqual([]);
    expect(Date.now() - begun).toBeLessThan(5_000);
  });

  test("a connection cut under a client is made again: nothing sent or completed is lost, what was held comes back; refused while down", async () => {
    const proxy = await startTcpProxy(5672);
    try {
      const url = `amqp://guest:guest@127.0.0.1:${proxy.port}/%2F`;
      const made = await client({ url });
      await made.admin.createQueue("cut");
      const ids = await made.sendMessages("cut", ["a", "b", "c", "d", "e"]);
      const [done, held] = await made.receiveMessages("cut", 2);
      await made.completeMessage(done!.receiptHandle);
      proxy.cut();
      // The standard client retries the calls the cut fails; the provider connects again.
      await made.sendMessage("cut", "f");
      expectCode(await rejection(made.completeMessage(held!.receiptHandle)), "InvalidReceipt");
      const bodies: string[] = [];
      for (let batch = await made.receiveMessages("cut", 10, 2_000); batch.length > 0; ) {
        for (const message of batch) {
          bodies.push(message.text());
          await made.completeMessage(message.receiptHandle);
        }
        batch = await made.receiveMessages("cut", 10);
      }
      expect(bodies.sort()).toEqual(["a", "b", "c", "d", "e", "f"].filter((body) => body !== done!.text()));
      expect(ids).toHaveLength(5);

      proxy.refuse(true);
      proxy.cut();
      const down = await client({ url, maxAttempts: 1 });
      const error = expectCode(await rejection(down.admin.listQueues()), "ConnectionFailed");
      expect(error.message).toContain(`127.0.0.1:${proxy.port}`);
      proxy.refuse(false);
      expect(await down.admin.listQueues()).toContain("cut");
    } finally {
      await proxy.close();
    }
  });
});

/** The error a synchronous call throws. */
function rejectionSync(call: () => unknown): unknown {
  try {
    call();
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail, but it succeeded");
}
