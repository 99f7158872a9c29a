// The consumer beyond the contract cases, on the memory provider and virtual time: what a handler
// does through its context, disposal and abort signals, events, batches gathered over time,
// session locks kept for slow handlers, and the receive loop's pace on an empty queue.
import { afterEach, describe, expect, it } from "vitest";
import {
  type Consumer,
  createClient,
  type QueueClient,
  type QueueError,
  type StandardSchemaV1,
  VirtualClock,
} from "../../src/index.js";
import { advanceUntil } from "../support/virtual-time.js";

const LOCK_MS = 30_000;
let clock: VirtualClock;
const clients: QueueClient[] = [];
let names = 0;

async function memory(): Promise<{ client: QueueClient; queue: string }> {
  clock = new VirtualClock();
  const client = await createClient({ provider: { type: "memory", name: `consumer-${++names}`, clock } });
  clients.push(client);
  const queue = `q${names}`;
  await client.admin.createQueue(queue, { lockDurationMs: LOCK_MS });
  return { client, queue };
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

/** Advances the test's virtual clock until `condition` holds. */
function until(condition: () => boolean, stepMs: number): Promise<void> {
  return advanceUntil(clock, condition, stepMs);
}

describe("a consumer's handler context", () => {
  it("settles through context.complete() once; the consumer leaves the message alone and later calls are refused", async () => {
    const { client, queue } = await memory();
    await client.sendMessage(queue, "mine");
    const refused: unknown[] = [];
    const consumer = client.consume(queue, async (_message, context) => {
      await context.complete();
      refused.push(await context.abandon().catch((error: unknown) => error));
    });
    await expect.poll(() => refused.length).toBe(1);
    expect((refused[0] as QueueError).code).toBe("InvalidReceipt");
    await consumer.stop();
    expect(consumer.metrics).toMatchObject({ completed: 1, abandoned: 0 });
  });

  it("abandons with a delay through context.abandon(); a bad delay is refused and leaves the message the consumer's", async () => {
    const { client, queue } = await memory();
    await client.sendMessage(queue, "later");
    const deliveries: number[] = [];
    const consumer = client.consume(queue, async (message, context) => {
      deliveries.push(message.deliveryCount);
      if (message.deliveryCount > 1) return;
      await expect(context.abandon({ delayMs: -5 })).rejects.toMatchObject({ code: "Validation" });
      await context.abandon({ delayMs: 10_000 });
    });
    await expect.poll(() => consumer.metrics.abandoned).toBe(1);
    await clock.advance(9_000);
    expect(deliveries).toEqual([1]);
    await until(() => deliveries.length === 2, 1_000);
    await expect.poll(() => consumer.metrics.completed).toBe(1);
    await consumer.stop();
  });

  it("renews the lock on demand through context.renewLock() and reads the body through context.value", async () => {
    const { client, queue } = await memory();
    await client.sendMessage(queue, JSON.stringify({ total: 7 }));
    const seen: { value: unknown; before: number; after: number }[] = [];
    const consumer = client.consume(queue, async (message, context) => {
      await clock.advance(1_000);
      const after = await context.renewLock();
      seen.push({ value: context.value, before: message.lockedUntil.getTime(), after: after.getTime() });
    });
    await expect.poll(() => seen.length).toBe(1);
    expect(seen[0]!.value).toEqual({ total: 7 });
    expect(seen[0]!.after).toBeGreaterThan(seen[0]!.before);
    await expect.poll(() => consumer.metrics.completed).toBe(1);
    expect(consumer.metrics.lockRenewals).toBe(1);
    await consumer.stop();
  });

  it("runs a handler that throws at once (not in a promise) like one that rejects", async () => {
    const { client, queue } = await memory();
    await client.sendMessage(queue, "sync");
    const consumer = client.consume(
      queue,
      (message) => {
        if (message.deliveryCount === 1) throw new Error("at once");
      },
      { retry: { initialDelayMs: 0, maxDelayMs: 0 } },
    );
    await expect.poll(() => consumer.metrics.completed).toBe(1);
    expect(consumer.metrics).toMatchObject({ failed: 1, abandoned: 1 });
    await consumer.stop();
  });
});

describe("a consumer's schema", () => {
  it("awaits a schema that answers through a promise, and dead-letters a body the schema throws on", async () => {
    const { client, queue } = await memory();
    const schema: StandardSchemaV1<unknown, { n: number }> = {
      "~standard": {
        version: 1,
        vendor: "test",
        validate: async (value) => {
          if ((value as { n?: unknown }).n === "boom") throw new Error("schema bug");
          return { value: value as { n: number } };
        },
      },
    };
    await client.sendMessages(queue, [JSON.stringify({ n: 1 }), JSON.stringify({ n: "boom" })]);
    const values: number[] = [];
    const consumer = client.consume(queue, (_message, context) => void values.push(context.value.n), {
      schema,
    });
    await expect.poll(() => consumer.metrics.completed + consumer.metrics.deadLettered).toBe(2);
    expect(values).toEqual([1]);
    const dead = await client.receiveMessage(await client.admin.deadLetterQueueOf(queue));
    expect(dead?.attributes.DeadLetterErrorDescription).toBe("the schema threw: schema bug");
    await consumer.stop();
  });
});

describe("a consumer's lifecycle", () => {
  it("stops when its signal aborts, and at the end of an `await using` block", async () => {
    const { client, queue } = await memory();
    const controller = new AbortController();
    const aborted = client.consume(queue, () => undefined, { signal: controller.signal });
    controller.abort();
    await expect.poll(() => aborted.listenerCount("stopped") === 0 && !aborted.running).toBe(true);
    let disposed: Consumer | undefined;
    {
      await using consumer = client.consume(queue, () => undefined);
      disposed = consumer;
      expect(consumer.running).toBe(true);
    }
    expect(disposed.running).toBe(false);
  });

  it("refuses a bad stop timeout without stopping", async () => {
    const { client, queue } = await memory();
    const consumer = client.consume(queue, () => undefined);
    await expect(consumer.stop({ timeoutMs: -1 })).rejects.toMatchObject({ code: "Validation" });
    expect(consumer.running).toBe(true);
    await consumer.stop();
  });

  it("says idle once each time the queue is drained", async () => {
    const { client, queue } = await memory();
    let idle = 0;
    const consumer = client.consume(queue, () => undefined, { receiveWaitMs: 1_000 });
    consumer.on("idle", () => idle++);
    await until(() => idle === 1, 500);
    await clock.advance(5_000);
    expect(idle).toBe(1);
    await client.sendMessages(queue, ["a", "b"]);
    await expect.poll(() => consumer.metrics.completed).toBe(2);
    await until(() => idle === 2, 500);
    await consumer.stop();
  });

  it("waits one long poll at a time on an empty queue, not a busy loop", async () => {
    const { client, queue } = await memory();
    let receives = 0;
    const receiveMessages = client.receiveMessages.bind(client);
    client.receiveMessages = (...args) => {
      receives++;
      return receiveMessages(...args);
    };
    const consumer = client.consume(queue, () => undefined, { concurrency: 8, receiveWaitMs: 20_000 });
    await clock.advance(100_000);
    expect(receives).toBeGreaterThanOrEqual(5);
    expect(receives).toBeLessThanOrEqual(6);
    await consumer.stop();
  });

  it("turns a failure of its own into a process warning, once per code, when nobody listens for errors", async () => {
    clock = new VirtualClock();
    const client = await createClient({
      provider: { type: "memory", name: `consumer-${++names}`, clock },
      createQueues: false,
    });
    clients.push(client);
    const warnings: string[] = [];
    const onWarning = (warning: Error & { code?: string }) => void warnings.push(warning.code ?? "");
    process.on("warning", onWarning);
    try {
      const consumer = client.consume("missing", () => undefined, {
        retry: { initialDelayMs: 100, maxDelayMs: 100 },
      });
      await until(() => warnings.length > 0, 100);
      await clock.advance(1_000);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual(["QUEUE_RUNTIME_CONSUMER_QueueNotFound"]);
      await consumer.stop();
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("keeps renewing only up to maxLockRenewalMs; a settle after the lock ended counts the lock lost", async () => {
    const { client, queue } = await memory();
    await client.sendMessage(queue, "too long");
    let release: () => void = () => undefined;
    const errors: string[] = [];
    const consumer = client.consume(
      queue,
      (message) =>
        message.deliveryCount === 1 ? new Promise<void>((resolve) => (release = resolve)) : undefined,
      { maxLockRenewalMs: LOCK_MS, prefetch: 0 },
    );
    consumer.on("error", (error) => errors.push(error.code));
    await expect.poll(() => consumer.metrics.received).toBe(1);
    // Renewed once at half the lock; the next renewal would fall at maxLockRenewalMs, so none is made.
    await clock.advance(3 * LOCK_MS);
    expect(consumer.metrics.lockRenewals).toBe(1);
    release();
    await expect.poll(() => consumer.metrics.completed).toBe(1);
    expect(consumer.metrics).toMatchObject({ locksLost: 1, received: 2 });
    expect(errors).toEqual(["InvalidReceipt"]);
    await consumer.stop();
  });
});

describe("consumeBatches", () => {
  it("gathers a batch for up to maxWaitMs after its first message", async () => {
    const { client, queue } = await memory();
    const sizes: number[] = [];
    const consumer = client.consumeBatches(queue, (messages) => void sizes.push(messages.length), {
      maxBatchSize: 3,
      maxWaitMs: 1_000,
    });
    await client.sendMessage(queue, "first");
    await clock.advance(400);
    await client.sendMessage(queue, "second");
    await clock.advance(400);
    expect(sizes).toEqual([]);
    await clock.advance(300);
    await expect.poll(() => sizes).toEqual([2]);
    await client.sendMessages(queue, ["a", "b", "c"]);
    await expect.poll(() => sizes).toEqual([2, 3]);
    await consumer.stop();
  });

  it("aborts a batch past handlerTimeoutMs and gives back every message the handler did not settle", async () => {
    const { client, queue } = await memory();
    await client.sendMessages(queue, ["a", "b", "c"]);
    const reasons: unknown[] = [];
    const consumer = client.consumeBatches(
      queue,
      async (messages, context) => {
        if (messages[0]!.deliveryCount > 1) return;
        await context.complete(messages[0]!);
        reasons.push(
          await new Promise((resolve) =>
            context.signal.addEventListener("abort", () => resolve(context.signal.reason)),
          ),
        );
      },
      {
        maxBatchSize: 3,
        maxWaitMs: 100,
        handlerTimeoutMs: 5_000,
        retry: { initialDelayMs: 0, maxDelayMs: 0 },
      },
    );
    await until(() => reasons.length === 1, 1_000);
    expect((reasons[0] as QueueError).code).toBe("Timeout");
    await until(() => consumer.metrics.completed === 3, 1_000);
    expect(consumer.metrics).toMatchObject({ failed: 1, abandoned: 2 });
    await consumer.stop();
  });
});

describe("consumeSessions", () => {
  it("keeps a session locked for a handler running three times the session lock, and closes it when idle", async () => {
    clock = new VirtualClock();
    const client = await createClient({
      provider: { type: "memory", name: `consumer-${++names}`, clock, sessionLockDurationMs: 10_000 },
    });
    const other = await createClient({ provider: { type: "memory", name: `consumer-${names}`, clock } });
    clients.push(client, other);
    await client.admin.createQueue("orders.fifo", { requiresSession: true });
    await client.sendMessage("orders.fifo", { body: "slow", sessionId: "a" });
    let release: () => void = () => undefined;
    let started = false;
    const consumer = client.consumeSessions(
      "orders.fifo",
      () =>
        new Promise<void>((resolve) => {
          started = true;
          release = resolve;
        }),
      { maxConcurrentSessions: 1, sessionIdleTimeoutMs: 2_000 },
    );
    await expect.poll(() => started).toBe(true);
    for (let waited = 0; waited < 30_000; waited += 2_500) {
      await clock.advance(2_500);
      await expect(other.acceptSession("orders.fifo", "a")).rejects.toMatchObject({ code: "SessionLocked" });
    }
    release();
    await expect.poll(() => consumer.metrics.completed).toBe(1);
    expect(consumer.metrics.lockRenewals).toBeGreaterThanOrEqual(5);
    await clock.advance(2_500);
    const session = await other.acceptSession("orders.fifo", "a");
    await session.closeSession();
    await consumer.stop();
  });
});
