import { expect } from "vitest";
import { QueueError } from "../../core/errors.js";
import type { QueueClient } from "../../core/queue-client.js";
import { StandardQueueClient } from "../../core/standard-queue-client.js";
import { createMemoryProvider } from "../../providers/memory/memory-provider.js";
import { FailingProvider } from "../failing-provider.js";
import { expectCode, type Harness, isPending, rejection } from "./harness.js";
import { contractCase, type Suite } from "./suite.js";

/** A standard client over a failing double of the provider under test (or of memory, for other clients). */
async function clientOverDouble(
  h: Harness,
  client: QueueClient,
): Promise<{ double: FailingProvider; client: StandardQueueClient }> {
  const inner =
    client instanceof StandardQueueClient
      ? client.provider
      : await createMemoryProvider({ type: "memory", clock: h.clock }, { createQueues: true });
  const double = new FailingProvider(inner);
  const wrapped = new StandardQueueClient(double, {
    retryPolicy: { maxAttempts: 3, initialDelayMs: 100, multiplier: 2, maxDelayMs: 1_000, jitter: false },
    ...(h.clock ? { clock: h.clock } : {}),
  });
  return { double, client: wrapped };
}

/** Lets a retrying call run its backoff waits: on virtual time by advancing, otherwise by waiting. */
async function settleWithBackoff<T>(h: Harness, call: Promise<T>): Promise<T> {
  if (h.clock) for (let i = 0; i < 5 && (await isPending(call)); i++) await h.clock.advance(1_000);
  return call;
}

/** C50–C53: errors and capabilities. */
export function errorCases(suite: Suite): void {
  contractCase(
    suite,
    "C50 an operation on a queue that does not exist fails with QueueNotFound",
    async (h) => {
      const client = await h.client();
      const missing = `${await h.queue(client)}-missing`;
      await expectCode(client.sendMessage(missing, "lost?"), "QueueNotFound");
      await expectCode(client.sendMessages(missing, ["a", "b"]), "QueueNotFound");
      await expectCode(client.receiveMessage(missing), "QueueNotFound");
      await expectCode(client.admin.getQueueStats(missing), "QueueNotFound");
      await expectCode(client.admin.purgeQueue(missing), "QueueNotFound");
      await expectCode(client.admin.deleteQueue(missing), "QueueNotFound");
      await expectCode(client.admin.deadLetterQueueOf(missing), "QueueNotFound");
      expect(await client.admin.getQueue(missing)).toBeNull();
      expect(await client.admin.listQueues(missing)).toEqual([]);
    },
  );

  contractCase(
    suite,
    "C51 providerType, supportsSessions(), supportsBatching() and capabilities agree with the provider",
    async (h) => {
      const client = await h.client();
      const capabilities = client.capabilities;
      expect(typeof client.providerType).toBe("string");
      expect(client.providerType.length).toBeGreaterThan(0);
      expect(client.supportsSessions()).toBe(capabilities.sessions !== "none");
      expect(client.supportsBatching()).toBe(capabilities.batching);
      expect(capabilities.maxBatchSize).toBeGreaterThanOrEqual(1);
      expect(capabilities.maxMessageBytes).toBeGreaterThan(0);
      const queue = await h.queue(client);
      const exactlyMax = new Uint8Array(capabilities.maxMessageBytes).fill(0x61);
      expect(await client.sendMessage(queue, exactlyMax)).toBeTruthy();
      expect((await client.receiveMessage(queue, 1_000))?.body.byteLength).toBe(capabilities.maxMessageBytes);
      const batch = Array.from({ length: capabilities.maxBatchSize }, (_, i) => `b${i}`);
      expect(await client.sendMessages(queue, batch)).toHaveLength(capabilities.maxBatchSize);
      if (capabilities.sessions === "none") {
        await expectCode(client.acceptSession(queue), "Unsupported");
      } else {
        const sessionQueue = await h.queue(client, { requiresSession: true });
        await client.sendMessage(sessionQueue, { body: "s", sessionId: "one" });
        expect((await client.acceptSession(sessionQueue, undefined, 1_000)).sessionId).toBe("one");
      }
      if (!capabilities.delayedDelivery)
        await expectCode(client.sendMessage(queue, { body: "x", delayMs: 1_000 }), "Unsupported");
      else
        await expectCode(
          client.sendMessage(queue, { body: "x", delayMs: capabilities.maxDelayMs + 1 }),
          "Validation",
        );
    },
  );

  contractCase(
    suite,
    "C52 invalid queue names and session ids fail with Validation before anything is sent",
    async (h) => {
      const client = await h.client();
      const queue = await h.queue(client);
      const { double, client: checked } = await clientOverDouble(h, client);
      for (const name of ["", "has space", "bad*char", "a".repeat(261), "trailing/"]) {
        await expectCode(client.sendMessage(name, "x"), "Validation");
        await expectCode(checked.sendMessage(name, "x"), "Validation");
        await expectCode(checked.receiveMessage(name), "Validation");
      }
      for (const sessionId of ["", "has space", "x".repeat(129), "tab\there"]) {
        await expectCode(client.sendMessage(queue, { body: "x", sessionId }), "Validation");
        await expectCode(checked.sendMessages(queue, ["fine", { body: "x", sessionId }]), "Validation");
        if (client.supportsSessions()) await expectCode(client.acceptSession(queue, sessionId), "Validation");
      }
      expect(double.calls.sendMessages).toBe(0);
      expect(double.calls.receiveMessages).toBe(0);
      expect(await client.receiveMessage(queue)).toBeNull();
    },
  );

  contractCase(
    suite,
    "C53 transient errors are retried with backoff up to maxAttempts; other errors are not retried",
    async (h) => {
      const { double, client } = await clientOverDouble(h, await h.client());
      const queue = await h.queue(client);
      double.failNext("sendMessages", new QueueError("Throttled", "slow down"), 2);
      const started = h.now();
      const sending = client.sendMessage(queue, "eventually");
      if (h.clock) {
        expect(await isPending(sending)).toBe(true);
        expect(double.calls.sendMessages).toBe(1);
        await h.clock.advance(99);
        expect(double.calls.sendMessages).toBe(1);
        await h.clock.advance(1);
        expect(double.calls.sendMessages).toBe(2);
      }
      expect(await settleWithBackoff(h, sending)).toBeTruthy();
      expect(double.calls.sendMessages).toBe(3);
      expect(h.now() - started).toBeGreaterThanOrEqual(300);
      expect(client.metrics.retries).toBe(2);

      double.failNext("receiveMessages", new QueueError("ConnectionFailed", "reset"), 3);
      const error = await rejection(settleWithBackoff(h, client.receiveMessage(queue)));
      expect((error as QueueError).code).toBe("ConnectionFailed");
      expect(double.calls.receiveMessages).toBe(3);

      double.failNext("receiveMessages", new QueueError("Authentication", "bad key"));
      await expectCode(client.receiveMessage(queue), "Authentication");
      expect(double.calls.receiveMessages).toBe(4);
      double.failNext("completeMessage", new QueueError("Provider", "broken", { isTransient: false }));
      const message = await client.receiveMessage(queue);
      await expectCode(client.completeMessage(message!.receiptHandle), "Provider");
      expect(double.calls.completeMessage).toBe(1);
      await client.completeMessage(message!.receiptHandle);
      expect(client.metrics.errors).toMatchObject({ ConnectionFailed: 1, Authentication: 1, Provider: 1 });
    },
  );
}
