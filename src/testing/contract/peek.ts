import { expect, type TestContext } from "vitest";
import type { PeekedMessage, QueueOptions } from "../../core/admin.js";
import { MAX_PEEK } from "../../core/peeked-message.js";
import type { QueueClient } from "../../core/queue-client.js";
import { expectCode, type Harness } from "./harness.js";
import { contractCase, type Suite } from "./suite.js";

/** How many of the provider's delay units C61's delayed message waits: long enough that no slow machine sees it come due mid-case. */
const DELAY_UNITS = 5;
/** C61 holds a lock through its peeks: one that no slow machine sees end mid-case. */
const PEEK_LOCK_MS = 30_000;

/** The bodies of peeked messages, as text. */
const bodies = (peeked: readonly PeekedMessage[]): string[] => peeked.map((message) => message.text());

/**
 * A client and a new queue for case `id`, which runs only where `capabilities.peek` is `peek`: the
 * cases of peeking where the provider can, the case of its refusal where it cannot.
 */
async function peekQueue(
  suite: Suite,
  h: Harness,
  context: TestContext,
  id: string,
  peek: boolean,
  options: QueueOptions = {},
): Promise<{ client: QueueClient; queue: string }> {
  const client = await h.client();
  if (peek) suite.requires(context, id, client.capabilities.peek, "peek");
  else suite.lacks(context, id, client.capabilities.peek, "peek");
  return { client, queue: await h.queue(client, options) };
}

/** Receives the next message of `queue`, expects it to be `id` at its `deliveryCount`-th delivery, and completes it. */
async function receiveOnce(
  client: QueueClient,
  queue: string,
  id: string,
  deliveryCount: number,
): Promise<void> {
  const message = await client.receiveMessage(queue, 2_000);
  expect(message?.messageId).toBe(id);
  expect(message?.deliveryCount).toBe(deliveryCount);
  await client.completeMessage(message!.receiptHandle);
}

/** C61–C64: peeking at a queue without receiving from it. */
export function peekCases(suite: Suite): void {
  contractCase(
    suite,
    "C61 peekMessages shows messages in sequence order with their states, and changes nothing a receive sees",
    async (h, context) => {
      const { client, queue } = await peekQueue(suite, h, context, "C61", true, {
        lockDurationMs: Math.max(h.options.lockDurationMs, PEEK_LOCK_MS),
      });
      const { capabilities } = client;
      const takenId = await client.sendMessage(queue, { body: "taken", attributes: { step: "1" } });
      const taken = await client.receiveMessage(queue, 1_000);
      expect(taken?.messageId).toBe(takenId);
      const waitingId = await client.sendMessage(queue, {
        body: "waiting",
        attributes: { step: "2" },
        correlationId: "order-42",
        contentType: "text/plain",
      });
      const delayMs = DELAY_UNITS * h.options.delayUnitMs;
      const laterId = capabilities.delayedDelivery
        ? await client.sendMessage(queue, { body: "later", delayMs })
        : undefined;
      const stats = await client.admin.getQueueStats(queue);

      const peeked = await client.admin.peekMessages(queue, 10);
      expect(bodies(peeked)).toEqual(
        capabilities.delayedDelivery ? ["taken", "waiting", "later"] : ["taken", "waiting"],
      );
      const [first, second, third] = peeked;
      expect(peeked.map((message) => message.messageId)).toEqual(
        [takenId, waitingId, laterId].filter(Boolean),
      );
      const sequence = peeked.map((message) => BigInt(message.sequenceNumber));
      expect(sequence).toEqual([...sequence].sort((a, b) => (a < b ? -1 : 1)));
      expect(new Set(sequence).size).toBe(peeked.length);
      expect(first?.sequenceNumber).toBe(taken!.sequenceNumber);
      expect(first?.attributes).toMatchObject({ step: "1" });
      expect(second?.attributes).toMatchObject({ step: "2" });
      expect(second?.correlationId).toBe("order-42");
      expect(second?.contentType).toBe("text/plain");
      expect([...second!.body]).toEqual([...new TextEncoder().encode("waiting")]);
      // Where the provider cannot tell a locked message from an active one, neither can its peek.
      expect(first?.state).toBe(capabilities.lockedCount ? "inFlight" : "active");
      expect(second?.state).toBe("active");
      if (capabilities.delayedDelivery) expect(third?.state).toBe("delayed");
      // A peek shows the deliveries so far: one of the received message, none of the others.
      expect(peeked.map((message) => message.deliveryCount)).toEqual([1, 0, 0].slice(0, peeked.length));

      expect(bodies(await client.admin.peekMessages(queue, 10))).toEqual(bodies(peeked));
      expect(await client.admin.getQueueStats(queue)).toEqual(stats);
      await receiveOnce(client, queue, waitingId, 1);
      await client.abandonMessage(taken!.receiptHandle);
      await receiveOnce(client, queue, takenId, 2);
      if (laterId !== undefined) {
        await h.advance(delayMs + 200);
        await receiveOnce(client, queue, laterId, 1);
      }
    },
  );

  contractCase(
    suite,
    "C62 peekMessages from a sequence number starts at that message, and max limits how many",
    async (h, context) => {
      const { client, queue } = await peekQueue(suite, h, context, "C62", true);
      expect(await client.admin.peekMessages(queue, 10)).toEqual([]);
      await client.sendMessages(queue, ["m0", "m1", "m2", "m3", "m4"]);
      const all = await client.admin.peekMessages(queue, 10);
      expect(bodies(all)).toEqual(["m0", "m1", "m2", "m3", "m4"]);
      expect(bodies(await client.admin.peekMessages(queue, 2))).toEqual(["m0", "m1"]);
      const third = all[2]!.sequenceNumber;
      expect(bodies(await client.admin.peekMessages(queue, 10, third))).toEqual(["m2", "m3", "m4"]);
      expect(bodies(await client.admin.peekMessages(queue, 2, third))).toEqual(["m2", "m3"]);
      const afterLast = String(BigInt(all[4]!.sequenceNumber) + 1n);
      expect(await client.admin.peekMessages(queue, 10, afterLast)).toEqual([]);
    },
  );

  contractCase(
    suite,
    "C63 peekMessages on a queue that does not exist fails with QueueNotFound; a bad max or sequence number with Validation",
    async (h) => {
      const client = await h.client();
      const queue = await h.queue(client);
      // Arguments are checked before the provider is asked, whether or not it can peek.
      for (const max of [0, -1, 1.5, MAX_PEEK + 1])
        await expectCode(client.admin.peekMessages(queue, max), "Validation");
      for (const fromSequence of ["", "-1", "1e3", "first", "9223372036854775808"])
        await expectCode(client.admin.peekMessages(queue, 1, fromSequence), "Validation");
      if (client.capabilities.peek)
        await expectCode(client.admin.peekMessages(`${queue}-missing`, 1), "QueueNotFound");
    },
  );

  contractCase(
    suite,
    "C64 where capabilities.peek is false, peekMessages fails with Unsupported",
    async (h, context) => {
      const { client, queue } = await peekQueue(suite, h, context, "C64", false);
      await client.sendMessage(queue, "unseen");
      await expectCode(client.admin.peekMessages(queue, 1), "Unsupported");
      expect((await client.receiveMessage(queue, 1_000))?.text()).toBe("unseen");
    },
  );
}
