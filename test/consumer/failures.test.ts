// The consumer when its provider fails under it: receives, settles, renewals and abandons that
// fail are "error" events, the consumer keeps going, every message is still handled at least once,
// and nothing becomes an unhandled rejection.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { QueueError, StandardQueueClient, VirtualClock } from "../../src/index.js";
import { createMemoryProvider } from "../../src/providers/memory/memory-provider.js";
import { FailingProvider } from "../../src/testing/index.js";
import { advanceUntil } from "../support/virtual-time.js";

const LOCK_MS = 10_000;
let clock: VirtualClock;
let provider: FailingProvider;
let client: StandardQueueClient;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);

beforeEach(async () => {
  clock = new VirtualClock();
  provider = new FailingProvider(
    await createMemoryProvider({ type: "memory", clock, lockDurationMs: LOCK_MS }, { createQueues: true }),
  );
  // One attempt per call: every failure the provider is told to make reaches the consumer.
  client = new StandardQueueClient(provider, { clock, retryPolicy: { maxAttempts: 1 } });
  await client.admin.createQueue("work", { lockDurationMs: LOCK_MS });
  process.on("unhandledRejection", onUnhandled);
});

afterEach(async () => {
  await client.close();
  process.off("unhandledRejection", onUnhandled);
  expect(unhandled).toEqual([]);
  unhandled.length = 0;
});

/** Advances the test's virtual clock until `condition` holds. */
function until(condition: () => boolean, stepMs: number): Promise<void> {
  return advanceUntil(clock, condition, stepMs);
}

describe("a consumer whose provider fails", () => {
  it("reports failed receives, backs off, and goes on", async () => {
    provider.failNext("receiveMessages", new QueueError("ConnectionFailed", "the server went away"), 3);
    await client.sendMessages("work", ["a", "b"]);
    const errors: string[] = [];
    const consumer = client.consume("work", () => undefined, {
      retry: { initialDelayMs: 100, maxDelayMs: 400 },
    });
    consumer.on("error", (error) => errors.push(error.code));
    await until(() => consumer.metrics.completed === 2, 100);
    expect(errors).toEqual(["ConnectionFailed", "ConnectionFailed", "ConnectionFailed"]);
    await consumer.stop();
  });

  it("reports a failed complete; the message comes again once its lock ends and is handled again", async () => {
    provider.failNext("completeMessage", new QueueError("Timeout", "no answer"));
    await client.sendMessage("work", "once more");
    const deliveries: number[] = [];
    const errors: QueueError[] = [];
    const consumer = client.consume("work", (message) => void deliveries.push(message.deliveryCount));
    consumer.on("error", (error) => errors.push(error));
    await expect.poll(() => errors.length).toBe(1);
    expect(errors[0]!.code).toBe("Timeout");
    await until(() => consumer.metrics.completed === 1, LOCK_MS / 4);
    expect(deliveries).toEqual([1, 2]);
    await consumer.stop();
  });

  it("tries a renewal that failed for a passing reason again while the lock holds", async () => {
    provider.failNext("renewMessageLock", new QueueError("Throttled", "slow down"), 2);
    await client.sendMessage("work", "slow");
    let release: () => void = () => undefined;
    const errors: string[] = [];
    const consumer = client.consume("work", () => new Promise<void>((resolve) => (release = resolve)));
    consumer.on("error", (error) => errors.push(error.code));
    await expect.poll(() => consumer.metrics.received).toBe(1);
    await clock.advance(3 * LOCK_MS);
    expect(errors).toEqual(["Throttled", "Throttled"]);
    expect(consumer.metrics.locksLost).toBe(0);
    expect(consumer.metrics.lockRenewals).toBeGreaterThanOrEqual(3);
    release();
    await expect.poll(() => consumer.metrics.completed).toBe(1);
    await consumer.stop();
  });

  it("reports a failed abandon after a handler threw; the message comes again once its lock ends", async () => {
    provider.failNext("abandonMessage", new QueueError("ConnectionFailed", "cut"));
    await client.sendMessage("work", "flaky");
    const errors: string[] = [];
    const consumer = client.consume("work", (message) => {
      if (message.deliveryCount === 1) throw new Error("not yet");
    });
    consumer.on("error", (error) => errors.push(error.code));
    await until(() => consumer.metrics.completed === 1, LOCK_MS / 4);
    expect(errors).toEqual(["ConnectionFailed"]);
    expect(consumer.metrics).toMatchObject({ failed: 1, abandoned: 0 });
    await consumer.stop();
  });

  it("survives every kind of failure at once: handlers, receives, settles and renewals all failing now and then", async () => {
    const total = 60;
    await client.sendMessages(
      "work",
      Array.from({ length: total }, (_, i) => `m${i}`),
    );
    const handled = new Set<string>();
    let errors = 0;
    const consumer = client.consume(
      "work",
      async (message, context) => {
        const text = message.text();
        if (text.endsWith("3") && message.deliveryCount === 1) throw new Error("a handler bug");
        if (text.endsWith("7") && message.deliveryCount === 1) await clock.advance(LOCK_MS);
        if (text.endsWith("5") && message.deliveryCount === 1) {
          await context.complete().catch(() => undefined);
          return;
        }
        handled.add(text);
      },
      { concurrency: 4, prefetch: 4, retry: { initialDelayMs: 50, maxDelayMs: 200 } },
    );
    consumer.on("error", () => errors++);
    for (let round = 0; round < 5; round++) {
      provider.failNext("receiveMessages", new QueueError("Throttled", "busy"));
      provider.failNext("completeMessage", new QueueError("ConnectionFailed", "cut"));
      provider.failNext("abandonMessage", new QueueError("Timeout", "slow"));
      provider.failNext("renewMessageLock", new QueueError("Provider", "broken", { isTransient: false }));
      await clock.advance(LOCK_MS / 2);
    }
    const stats = async () => {
      const { active, inFlight, delayed } = await client.admin.getQueueStats("work");
      return active + inFlight + delayed;
    };
    let left = total;
    for (let step = 0; step < 200 && left > 0; step++) {
      await clock.advance(LOCK_MS / 4);
      left = await stats();
    }
    expect(left).toBe(0);
    // The "5"s complete themselves on their first delivery (they reach `handled` only if that failed).
    for (let i = 0; i < total; i++) if (i % 10 !== 5) expect(handled.has(`m${i}`), `m${i}`).toBe(true);
    expect(errors).toBeGreaterThan(0);
    expect(consumer.running).toBe(true);
    await consumer.stop();
  });
});
