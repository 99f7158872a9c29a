import { expect } from "vitest";
import type { Consumer } from "../../core/consumer/consumer.js";
import { DeadLetterError } from "../../core/consumer/dead-letter-error.js";
import { QueueError } from "../../core/errors.js";
import type { MessageInput } from "../../core/message.js";
import type { QueueClient } from "../../core/queue-client.js";
import type { ReceiptHandle } from "../../core/receipt-handle.js";
import type { StandardSchemaV1 } from "../../core/standard-schema.js";
import { expectCode, type Harness, isPending } from "./harness.js";
import { contractCase, type Suite } from "./suite.js";

/** A promise handlers wait on until the test opens it. */
class Gate {
  readonly #opened: Promise<void>;
  #open!: () => void;

  constructor() {
    this.#opened = new Promise((resolve) => {
      this.#open = resolve;
    });
  }

  wait(): Promise<void> {
    return this.#opened;
  }

  open(): void {
    this.#open();
  }
}

/** Resolves with the reason `signal` aborts with. */
function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener("abort", () => resolve(signal.reason), { once: true });
  });
}

/** A Standard Schema of `{ id: number }`, written out so that the suite needs no validator library. */
const ORDER_SCHEMA: StandardSchemaV1<unknown, { id: number; poison?: boolean }> = {
  "~standard": {
    version: 1,
    vendor: "queue-runtime-contract",
    validate: (value) =>
      typeof value === "object" && value !== null && typeof (value as { id?: unknown }).id === "number"
        ? { value: value as { id: number; poison?: boolean } }
        : { issues: [{ message: "must be a number", path: ["id"] }] },
  },
};

/** A client and a new queue of the test holding `bodies`. */
async function queueOf(
  h: Harness,
  bodies: readonly MessageInput[],
): Promise<{ client: QueueClient; queue: string }> {
  const client = await h.client();
  const queue = await h.queue(
    client,
    bodies.some((body) => typeof body === "object" && "sessionId" in body) ? { requiresSession: true } : {},
  );
  if (bodies.length > 0) await client.sendMessages(queue, bodies);
  return { client, queue };
}

/** `count` bodies `m0`, `m1`, .... */
function numbered(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `m${i}`);
}

/** Every message the queue still has, in any state. */
async function left(client: QueueClient, queue: string): Promise<number> {
  const stats = await client.admin.getQueueStats(queue);
  return stats.active + stats.inFlight + stats.delayed;
}

/** Drains whatever `client` can receive from `queue` now, completing nothing. */
async function receiveAll(client: QueueClient, queue: string, expected: number): Promise<string[]> {
  const texts: string[] = [];
  await expect
    .poll(async () => {
      for (const message of await client.receiveMessages(queue, 10, 0)) texts.push(message.text());
      return texts.length;
    })
    .toBe(expected);
  return texts;
}

/** C65–C79: consumers (`consume`, `consumeBatches`, `consumeSessions`) on the client API. */
export function consumerCases(suite: Suite): void {
  const hasSessions = (client: QueueClient) => client.capabilities.sessions !== "none";

  contractCase(
    suite,
    "C65 consume runs the handler on every message and completes it; concurrency and prefetch are reached and never exceeded",
    async (h) => {
      const { client, queue } = await queueOf(h, numbered(12));
      const gate = new Gate();
      const handled: string[] = [];
      let running = 0;
      let maxRunning = 0;
      let maxInFlight = 0;
      const consumer: Consumer = client.consume(
        queue,
        async (message) => {
          running++;
          maxRunning = Math.max(maxRunning, running);
          maxInFlight = Math.max(maxInFlight, consumer.inFlight);
          await gate.wait();
          running--;
          handled.push(message.text());
        },
        { concurrency: 3, prefetch: 2 },
      );
      await expect.poll(() => running).toBe(3);
      await expect.poll(() => consumer.inFlight).toBe(5);
      // The receive loop waits for a free handler rather than taking more.
      if (client.capabilities.lockedCount) expect((await client.admin.getQueueStats(queue)).inFlight).toBe(5);
      expect(consumer.metrics.received).toBe(5);
      gate.open();
      await expect.poll(() => consumer.metrics.completed).toBe(12);
      expect(handled.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `m${i}`).sort());
      expect(maxRunning).toBe(3);
      expect(maxInFlight).toBeLessThanOrEqual(5);
      expect(consumer.metrics).toMatchObject({ received: 12, completed: 12, abandoned: 0, failed: 0 });
      await consumer.stop();
      expect(await left(client, queue)).toBe(0);
    },
  );

  contractCase(
    suite,
    "C66 a handler running three times the lock duration keeps its message: renewed, never received by anyone else",
    async (h, context) => {
      const client = await h.client();
      suite.requires(context, "C66", client.capabilities.lockRenewal, "lockRenewal");
      const other = await h.client();
      const queue = await h.queue(client);
      await client.sendMessage(queue, "long work");
      const gate = new Gate();
      let started = 0;
      const consumer = client.consume(queue, async () => {
        started++;
        await gate.wait();
      });
      await expect.poll(() => started).toBe(1);
      const lock = h.options.lockDurationMs;
      for (let waited = 0; waited < 3 * lock; waited += lock / 4) {
        await h.advance(lock / 4);
        expect(await other.receiveMessage(queue)).toBeNull();
      }
      gate.open();
      await expect.poll(() => consumer.metrics.completed).toBe(1);
      expect(started).toBe(1);
      expect(consumer.metrics.lockRenewals).toBeGreaterThanOrEqual(4);
      expect(consumer.metrics.locksLost).toBe(0);
      await consumer.stop();
      expect(await left(client, queue)).toBe(0);
    },
  );

  contractCase(
    suite,
    "C67 a handler past handlerTimeoutMs sees its signal abort with Timeout, and its message is abandoned",
    async (h) => {
      const { client, queue } = await queueOf(h, ["slow"]);
      const timeout = h.options.lockDurationMs / 4;
      const seen: unknown[] = [];
      const consumer = client.consume(
        queue,
        async (message, context) => {
          if (message.deliveryCount === 1) seen.push(await aborted(context.signal));
          else seen.push(message.deliveryCount);
        },
        { handlerTimeoutMs: timeout, retry: { initialDelayMs: 0, maxDelayMs: 0 } },
      );
      await expect.poll(() => consumer.metrics.received).toBe(1);
      await h.until(() => seen.length === 2, timeout / 4, "the second delivery");
      expect(seen[0]).toBeInstanceOf(QueueError);
      expect((seen[0] as QueueError).code).toBe("Timeout");
      expect(seen[1]).toBe(2);
      await expect.poll(() => consumer.metrics.completed).toBe(1);
      expect(consumer.metrics).toMatchObject({ failed: 1, abandoned: 1, completed: 1 });
      await consumer.stop();
    },
  );

  contractCase(
    suite,
    "C68 a handler that throws abandons its message with the retry delay of its delivery count",
    async (h) => {
      const { client, queue } = await queueOf(h, ["flaky"]);
      const unit = h.options.delayUnitMs;
      const times: number[] = [];
      const failures: unknown[] = [];
      const consumer = client.consume(
        queue,
        () => {
          times.push(h.now());
          if (times.length < 3) throw new Error(`not yet (${times.length})`);
        },
        { retry: { initialDelayMs: unit, multiplier: 2, maxDelayMs: 4 * unit, jitter: false } },
      );
      consumer.on("failed", (error) => failures.push(error));
      await h.until(() => times.length === 3, unit / 4, "the third delivery");
      // Real clocks round: SQS counts delays in whole seconds from its own clock.
      expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(unit * 0.95);
      expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(2 * unit * 0.95);
      if (h.clock !== undefined) {
        expect(times[1]! - times[0]!).toBeLessThanOrEqual(unit * 1.25);
        expect(times[2]! - times[1]!).toBeLessThanOrEqual(2 * unit + unit / 4);
      }
      expect(failures.map(String)).toEqual(["Error: not yet (1)", "Error: not yet (2)"]);
      await expect.poll(() => consumer.metrics.completed).toBe(1);
      expect(consumer.metrics).toMatchObject({ failed: 2, abandoned: 2 });
      await consumer.stop();
    },
  );

  contractCase(
    suite,
    "C69 DeadLetterError and a body that fails the schema dead-letter the message at once; the handler sees only valid bodies",
    async (h) => {
      const { client, queue } = await queueOf(h, [
        JSON.stringify({ id: 1 }),
        JSON.stringify({ id: "one" }),
        "not json",
        JSON.stringify({ id: 2, poison: true }),
      ]);
      const ids: number[] = [];
      const consumer = client.consume(
        queue,
        (_message, context) => {
          ids.push(context.value.id);
          if (context.value.poison) throw new DeadLetterError("Poison", "refused by the handler");
        },
        { schema: ORDER_SCHEMA },
      );
      await expect.poll(() => consumer.metrics.completed + consumer.metrics.deadLettered).toBe(4);
      expect(ids.sort()).toEqual([1, 2]);
      expect(consumer.metrics).toMatchObject({ completed: 1, deadLettered: 3, abandoned: 0, failed: 0 });
      await consumer.stop();
      const deadLetterQueue = await client.admin.deadLetterQueueOf(queue);
      const dead = new Map<string, Record<string, string>>();
      await expect
        .poll(async () => {
          for (const message of await client.receiveMessages(deadLetterQueue, 10, 0)) {
            dead.set(message.text(), { ...message.attributes });
            expect(message.deliveryCount).toBe(1);
          }
          return dead.size;
        })
        .toBe(3);
      expect(dead.get(JSON.stringify({ id: "one" }))).toMatchObject({
        DeadLetterReason: "SchemaValidationFailed",
        DeadLetterErrorDescription: "id: must be a number",
      });
      expect(dead.get("not json")?.DeadLetterReason).toBe("SchemaValidationFailed");
      expect(dead.get("not json")?.DeadLetterErrorDescription).toMatch(/^the body is not JSON/);
      expect(dead.get(JSON.stringify({ id: 2, poison: true }))).toMatchObject({
        DeadLetterReason: "Poison",
        DeadLetterErrorDescription: "refused by the handler",
      });
    },
  );

  contractCase(
    suite,
    "C70 stop() stops receiving, gives prefetched messages back at once, waits for running handlers, and is idempotent",
    async (h) => {
      const { client, queue } = await queueOf(h, numbered(6));
      const other = await h.client();
      const gate = new Gate();
      let running = 0;
      const consumer = client.consume(
        queue,
        async () => {
          running++;
          await gate.wait();
        },
        { concurrency: 2, prefetch: 2 },
      );
      let stoppedEvents = 0;
      consumer.on("stopped", () => stoppedEvents++);
      await expect.poll(() => running).toBe(2);
      await expect.poll(() => consumer.inFlight).toBe(4);
      const stopping = consumer.stop();
      expect(consumer.stop()).toBe(stopping);
      expect(consumer.running).toBe(false);
      // The two prefetched messages come back at once, beside the two never received.
      expect(await receiveAll(other, queue, 4)).toHaveLength(4);
      expect(await isPending(stopping)).toBe(true);
      gate.open();
      await stopping;
      expect(running).toBe(2);
      expect(consumer.inFlight).toBe(0);
      expect(stoppedEvents).toBe(1);
      expect(consumer.metrics).toMatchObject({ received: 4, completed: 2, abandoned: 2 });
      await consumer.stop();
      expect(stoppedEvents).toBe(1);
    },
  );

  contractCase(
    suite,
    "C71 stop({ timeoutMs }) aborts the signals of handlers that outlive it and gives their messages back",
    async (h) => {
      const { client, queue } = await queueOf(h, ["stubborn"]);
      const other = await h.client();
      const reasons: unknown[] = [];
      let started = 0;
      const consumer = client.consume(queue, async (_message, context) => {
        started++;
        reasons.push(await aborted(context.signal));
      });
      await expect.poll(() => started).toBe(1);
      const timeoutMs = h.options.lockDurationMs / 4;
      const stopping = consumer.stop({ timeoutMs });
      let stopped = false;
      void stopping.then(() => {
        stopped = true;
      });
      await h.until(() => stopped, timeoutMs / 4, "the stop");
      expect((reasons[0] as QueueError).code).toBe("Timeout");
      expect(consumer.metrics).toMatchObject({ abandoned: 1, completed: 0 });
      // Given back means receivable again; an emulator under load (moto) may take over a second to show it.
      const again = await other.receiveMessage(queue, 5_000);
      expect(again?.text()).toBe("stubborn");
      expect(again?.deliveryCount).toBe(2);
    },
  );

  contractCase(
    suite,
    "C72 client.close() stops the client's consumers first, letting their handlers finish and settle",
    async (h) => {
      const { client, queue } = await queueOf(h, ["a", "b"]);
      const other = await h.client();
      const gate = new Gate();
      let running = 0;
      const consumer = client.consume(
        queue,
        async () => {
          running++;
          await gate.wait();
        },
        { concurrency: 2 },
      );
      await expect.poll(() => running).toBe(2);
      const closing = client.close();
      expect(await isPending(closing)).toBe(true);
      expect(consumer.running).toBe(false);
      gate.open();
      await closing;
      expect(consumer.metrics.completed).toBe(2);
      expect(await left(other, queue)).toBe(0);
      await expectCode(client.sendMessage(queue, "after"), "ClientClosed");
      expect(() => client.consume(queue, () => undefined)).toThrow(/closed/);
    },
  );

  contractCase(suite, "C73 rateLimit holds: at most max handler starts in any window of perMs", async (h) => {
    const { client, queue } = await queueOf(h, numbered(6));
    const windowMs = h.options.lockDurationMs / 4;
    const starts: number[] = [];
    const consumer = client.consume(queue, () => void starts.push(h.now()), {
      concurrency: 6,
      rateLimit: { max: 2, perMs: windowMs },
    });
    await expect.poll(() => starts.length).toBe(2);
    await h.until(() => starts.length === 6, windowMs / 4, "six starts");
    for (let i = 2; i < starts.length; i++)
      expect(starts[i]! - starts[i - 2]!).toBeGreaterThanOrEqual(windowMs - 1);
    await expect.poll(() => consumer.metrics.completed).toBe(6);
    await consumer.stop();
  });

  contractCase(
    suite,
    "C74 a lock lost while the handler runs aborts its signal, and the consumer does not settle the message",
    async (h, context) => {
      const client = await h.client();
      suite.requires(context, "C74", client.capabilities.lockRenewal, "lockRenewal");
      const settler = await h.client();
      const queue = await h.queue(client);
      await client.sendMessage(queue, "taken over");
      let receipt: ReceiptHandle | undefined;
      let reason: unknown;
      const errors: QueueError[] = [];
      const consumer = client.consume(queue, async (message, handlerContext) => {
        receipt = message.receiptHandle;
        reason = await aborted(handlerContext.signal);
      });
      consumer.on("error", (error) => errors.push(error));
      await expect.poll(() => receipt).toBeDefined();
      // Someone else settles it: the consumer's next renewal finds the lock gone.
      await settler.completeMessage(String(receipt));
      const lock = h.options.lockDurationMs;
      await h.until(() => reason !== undefined, lock / 8, "the lost lock");
      expect(reason).toBeInstanceOf(QueueError);
      expect(["InvalidReceipt", "MessageNotFound"]).toContain((reason as QueueError).code);
      await expect.poll(() => consumer.inFlight).toBe(0);
      expect(consumer.metrics).toMatchObject({ locksLost: 1, completed: 0, abandoned: 0 });
      expect(errors.map((error) => error.code)).toContain((reason as QueueError).code);
      await consumer.stop();
    },
  );

  contractCase(
    suite,
    "C75 consumeBatches hands up to maxBatchSize messages at once; what the handler did not settle is completed, or abandoned when it throws",
    async (h) => {
      const { client, queue } = await queueOf(
        h,
        Array.from({ length: 7 }, (_, i) => JSON.stringify({ id: i })),
      );
      const sizes: number[] = [];
      let calls = 0;
      const consumer = client.consumeBatches(
        queue,
        async (messages, context) => {
          calls++;
          sizes.push(messages.length);
          expect(context.values).toHaveLength(messages.length);
          if (calls === 1) {
            await context.deadLetter(messages[0]!, "Unwanted");
            await expectCode(context.complete(messages[0]!), "InvalidReceipt");
            throw new Error("the rest once more");
          }
        },
        { maxBatchSize: 3, retry: { initialDelayMs: 0, maxDelayMs: 0 } },
      );
      await expect.poll(() => consumer.metrics.completed).toBe(6);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(3);
      expect(sizes[0]).toBeGreaterThanOrEqual(2);
      expect(consumer.metrics).toMatchObject({ deadLettered: 1, failed: 1, abandoned: sizes[0]! - 1 });
      await consumer.stop();
      expect(await left(client, queue)).toBe(0);
    },
  );

  contractCase(
    suite,
    "C76 consumeSessions runs each session in order, one message at a time, up to maxConcurrentSessions, never one session in two consumers",
    async (h, context) => {
      const first = await h.client();
      suite.requires(context, "C76", hasSessions(first), "sessions");
      const second = await h.client();
      const queue = await h.queue(first, { requiresSession: true });
      for (let i = 0; i < 4; i++)
        await first.sendMessages(
          queue,
          Array.from({ length: 4 }, (_, s) => ({ body: `${i}`, sessionId: `s${s}` })),
        );
      const active = new Map<string, number>();
      const order = new Map<string, number[]>();
      const running = [0, 0];
      const maxRunning = [0, 0];
      let overlaps = 0;
      let handled = 0;
      const handler =
        (which: 0 | 1) => async (message: { sessionId: string | undefined; text(): string }) => {
          const session = message.sessionId!;
          if ((active.get(session) ?? 0) > 0) overlaps++;
          active.set(session, 1);
          running[which]!++;
          maxRunning[which] = Math.max(maxRunning[which]!, running[which]!);
          for (let tick = 0; tick < 3; tick++) await new Promise((resolve) => setImmediate(resolve));
          order.set(session, [...(order.get(session) ?? []), Number(message.text())]);
          running[which]!--;
          active.set(session, 0);
          handled++;
        };
      const idle = h.options.sessionLockDurationMs / 10;
      const options = { maxConcurrentSessions: 2, sessionIdleTimeoutMs: idle };
      const consumers = [
        first.consumeSessions(queue, handler(0), options),
        second.consumeSessions(queue, handler(1), options),
      ];
      await h.until(() => handled === 16, idle / 4, "16 handled messages");
      expect(overlaps).toBe(0);
      for (let s = 0; s < 4; s++) expect(order.get(`s${s}`)).toEqual([0, 1, 2, 3]);
      expect(Math.max(...maxRunning)).toBeLessThanOrEqual(2);
      await Promise.all(consumers.map((consumer) => consumer.stop()));
      expect(consumers[0]!.metrics.completed + consumers[1]!.metrics.completed).toBe(16);
      expect(await left(first, queue)).toBe(0);
    },
  );

  contractCase(
    suite,
    "C77 a session message that fails comes again before the session's later messages, after its retry delay; the session's state is at hand",
    async (h, context) => {
      const client = await h.client();
      suite.requires(context, "C77", hasSessions(client), "sessions");
      const queue = await h.queue(client, { requiresSession: true });
      await client.sendMessages(
        queue,
        ["a0", "a1", "a2"].map((body) => ({ body, sessionId: "a" })),
      );
      const unit = h.options.delayUnitMs;
      const seen: { text: string; at: number }[] = [];
      const consumer = client.consumeSessions(
        queue,
        async (message, handlerContext) => {
          expect(handlerContext.session?.sessionId).toBe("a");
          seen.push({ text: message.text(), at: h.now() });
          if (message.text() === "a1" && seen.length === 2) throw new Error("not yet");
          if (client.capabilities.sessionState) await handlerContext.session!.setSessionState(message.text());
        },
        {
          maxConcurrentSessions: 1,
          prefetch: 3,
          sessionIdleTimeoutMs: h.options.sessionLockDurationMs / 10,
          retry: { initialDelayMs: unit, jitter: false },
        },
      );
      await h.until(() => seen.length === 4, unit / 4, "four handler runs");
      expect(seen.map((run) => run.text)).toEqual(["a0", "a1", "a1", "a2"]);
      expect(seen[2]!.at - seen[1]!.at).toBeGreaterThanOrEqual(unit * 0.95);
      await expect.poll(() => consumer.metrics.completed).toBe(3);
      await consumer.stop();
      if (client.capabilities.sessionState) {
        const session = await client.acceptSession(queue, "a");
        expect(new TextDecoder().decode((await session.getSessionState())!)).toBe("a2");
        await session.closeSession();
      }
    },
  );

  contractCase(
    suite,
    "C78 an invalid consumer option is Configuration at consume(); consumeSessions without sessions is Unsupported",
    async (h) => {
      const client = await h.client();
      const queue = await h.queue(client);
      const invalid: [string, () => unknown][] = [
        ["concurrency 0", () => client.consume(queue, () => undefined, { concurrency: 0 })],
        ["prefetch -1", () => client.consume(queue, () => undefined, { prefetch: -1 })],
        ["an unknown option", () => client.consume(queue, () => undefined, { concurency: 2 } as never)],
        ["a bad retry", () => client.consume(queue, () => undefined, { retry: { maxDelayMs: -1 } })],
        [
          "a bad rate limit",
          () => client.consume(queue, () => undefined, { rateLimit: { max: 0, perMs: 1 } }),
        ],
        ["a schema that is not one", () => client.consume(queue, () => undefined, { schema: {} as never })],
        ["a handler that is not a function", () => client.consume(queue, "handler" as never)],
        ["maxBatchSize 0", () => client.consumeBatches(queue, () => undefined, { maxBatchSize: 0 })],
        [
          "concurrency on sessions",
          () => client.consumeSessions(queue, () => undefined, { concurrency: 2 } as never),
        ],
      ];
      for (const [what, call] of invalid) {
        let thrown: unknown;
        try {
          call();
        } catch (error) {
          thrown = error;
        }
        expect(thrown, what).toBeInstanceOf(QueueError);
        expect((thrown as QueueError).code, what).toBe("Configuration");
      }
      expect(() => client.consume("", () => undefined)).toThrow(QueueError);
      if (!hasSessions(client)) {
        let thrown: unknown;
        try {
          client.consumeSessions(queue, () => undefined);
        } catch (error) {
          thrown = error;
        }
        expect((thrown as QueueError).code).toBe("Unsupported");
      }
    },
  );

  contractCase(
    suite,
    "C79 a receive that fails is an error event and the consumer keeps going: a queue created later is consumed",
    async (h) => {
      const client = await h.client();
      const queue = h.queueName();
      const errors: QueueError[] = [];
      const handled: string[] = [];
      const backoff = h.options.lockDurationMs / 10;
      const consumer = client.consume(queue, (message) => void handled.push(message.text()), {
        retry: { initialDelayMs: backoff, maxDelayMs: backoff },
      });
      consumer.on("error", (error) => errors.push(error));
      await h.until(() => errors.length >= 2, backoff / 2, "two failed receives");
      expect(errors[0]!.code).toBe("QueueNotFound");
      expect(consumer.running).toBe(true);
      await client.admin.createQueue(queue, { lockDurationMs: h.options.lockDurationMs });
      await client.sendMessage(queue, "at last");
      await h.until(() => handled.length === 1, backoff / 2, "the message handled");
      expect(handled).toEqual(["at last"]);
      await consumer.stop();
    },
  );
}
