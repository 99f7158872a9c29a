import { expect } from "vitest";
import { QueueError } from "../../core/errors.js";
import type { ReceivedMessage } from "../../core/message.js";
import type { QueueClient } from "../../core/queue-client.js";
import { isPending, NON_UTF8_BYTES, rejection } from "./harness.js";
import { contractCase, type Suite } from "./suite.js";

/** Receives until `count` messages came or the queue answers empty, completing each. */
export async function drain(client: QueueClient, queue: string, count: number): Promise<ReceivedMessage[]> {
  const received: ReceivedMessage[] = [];
  while (received.length < count) {
    const batch = await client.receiveMessages(queue, Math.min(10, count - received.length));
    if (batch.length === 0) break;
    for (const message of batch) await client.completeMessage(message.receiptHandle);
    received.push(...batch);
  }
  return received;
}

/** C01–C06: what a message is and how it travels. */
export function messageCases(suite: Suite): void {
  contractCase(
    suite,
    "C01 sendMessage returns a non-empty id, different for every message (1 000 concurrent sends)",
    async (h) => {
      const client = await h.client();
      const queue = await h.queue(client);
      const first = await client.sendMessage(queue, "one");
      expect(typeof first).toBe("string");
      expect(first.length).toBeGreaterThan(0);
      const ids = await Promise.all(
        Array.from({ length: 1_000 }, (_, i) => client.sendMessage(queue, `m${i}`)),
      );
      expect(new Set([first, ...ids]).size).toBe(1_001);
      expect(ids.every((id) => id.length > 0)).toBe(true);
    },
  );

  contractCase(
    suite,
    "C02 body bytes, attributes, correlation id, content type and session id survive the round trip",
    async (h) => {
      const client = await h.client();
      const queue = await h.queue(client);
      await client.sendMessage(queue, {
        body: NON_UTF8_BYTES,
        attributes: { tenant: "acme", "trace-id": "0af7651916cd43dd", empty: "", unicode: "zürich ✓" },
        correlationId: "order-42",
        contentType: "application/octet-stream",
        sessionId: "customer-7",
      });
      await client.sendMessage(queue, { body: new Uint8Array(0) });
      await client.sendMessage(queue, "plain text é");
      const [binary, empty, text] = await drain(client, queue, 3);
      expect(binary?.body).toBeInstanceOf(Uint8Array);
      expect([...binary!.body]).toEqual([...NON_UTF8_BYTES]);
      expect(binary?.attributes).toMatchObject({
        tenant: "acme",
        "trace-id": "0af7651916cd43dd",
        empty: "",
        unicode: "zürich ✓",
      });
      expect(binary?.correlationId).toBe("order-42");
      expect(binary?.contentType).toBe("application/octet-stream");
      expect(binary?.sessionId).toBe("customer-7");
      expect(binary?.deliveryCount).toBe(1);
      expect(empty?.body.byteLength).toBe(0);
      expect(text?.text()).toBe("plain text é");
    },
  );

  contractCase(
    suite,
    "C03 receiveMessage on an empty queue returns null after about timeoutMs, and at once with 0",
    async (h) => {
      const client = await h.client();
      const queue = await h.queue(client);
      const started = h.now();
      expect(await client.receiveMessage(queue, 0)).toBeNull();
      expect(h.now() - started).toBeLessThan(1_000);
      const timeoutMs = 2_000;
      const begun = Date.now();
      const waiting = client.receiveMessage(queue, timeoutMs);
      if (h.clock) {
        await h.clock.advance(timeoutMs - 1);
        expect(await isPending(waiting)).toBe(true);
        await h.clock.advance(1);
        expect(await waiting).toBeNull();
      } else {
        expect(await waiting).toBeNull();
        const elapsed = Date.now() - begun;
        expect(elapsed).toBeGreaterThanOrEqual(timeoutMs - 50);
        expect(elapsed).toBeLessThanOrEqual(timeoutMs + 1_000);
      }
    },
  );

  contractCase(suite, "C04 a waiting receiveMessage returns as soon as a message is sent", async (h) => {
    const receiver = await h.client();
    const sender = await h.client();
    const queue = await h.queue(receiver);
    const begun = Date.now();
    const waiting = receiver.receiveMessage(queue, 10_000);
    expect(await isPending(waiting)).toBe(true);
    await sender.sendMessage(queue, "wake up");
    const message = await waiting;
    expect(message?.text()).toBe("wake up");
    expect(Date.now() - begun).toBeLessThan(5_000);
  });

  contractCase(
    suite,
    "C05 a message over maxMessageBytes is refused with MessageTooLarge naming size and limit",
    async (h) => {
      const client = await h.client();
      const queue = await h.queue(client);
      const limit = client.capabilities.maxMessageBytes;
      const error = await rejection(client.sendMessage(queue, new Uint8Array(limit + 1)));
      expect(error).toBeInstanceOf(QueueError);
      expect((error as QueueError).code).toBe("MessageTooLarge");
      expect((error as QueueError).message).toContain(String(limit + 1));
      expect((error as QueueError).message).toContain(String(limit));
      const batchError = await rejection(client.sendMessages(queue, ["small", new Uint8Array(limit + 1)]));
      expect((batchError as QueueError).code).toBe("MessageTooLarge");
      expect(await client.receiveMessage(queue)).toBeNull();
    },
  );

  contractCase(
    suite,
    "C06 sendMessages of 25 returns 25 ids in order, all received; batches over the limit are split",
    async (h) => {
      const client = await h.client();
      const queue = await h.queue(client);
      const bodies = Array.from({ length: 25 }, (_, i) => `batch-${i}`);
      const ids = await client.sendMessages(queue, bodies);
      expect(ids).toHaveLength(25);
      expect(new Set(ids).size).toBe(25);
      const received = await drain(client, queue, 25);
      expect(received).toHaveLength(25);
      const idByBody = new Map(received.map((message) => [message.text(), message.messageId]));
      expect(bodies.map((body) => idByBody.get(body))).toEqual(ids);
      const over = client.capabilities.maxBatchSize * 2 + 3;
      const overIds = await client.sendMessages(
        queue,
        Array.from({ length: over }, (_, i) => `over-${i}`),
      );
      expect(overIds).toHaveLength(over);
      expect(await drain(client, queue, over)).toHaveLength(over);
    },
  );
}
