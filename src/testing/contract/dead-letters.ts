import { expect } from "vitest";
import { QueueError } from "../../core/errors.js";
import { DEAD_LETTER_ATTRIBUTES, DEAD_LETTER_REASONS } from "../../rules/dead-letters.js";
import { expectCode } from "./harness.js";
import { contractCase, type Suite } from "./suite.js";

/** C20–C24: dead letters. */
export function deadLetterCases(suite: Suite): void {
  contractCase(
    suite,
    "C20 deadLetterMessage moves the message to the dead-letter queue with its reason and description",
    async (h) => {
      const client = await h.client();
      const queue = await h.queue(client);
      const id = await client.sendMessage(queue, {
        body: "poison",
        attributes: { kind: "order" },
        correlationId: "c-1",
      });
      const message = await client.receiveMessage(queue);
      await client.deadLetterMessage(message!.receiptHandle, "SchemaMismatch", "field total is missing");
      await h.advance(h.options.lockDurationMs + 200);
      expect(await client.receiveMessage(queue)).toBeNull();
      const deadLetterQueue = await client.admin.deadLetterQueueOf(queue);
      const dead = await client.receiveMessage(deadLetterQueue, 1_000);
      expect(dead?.messageId).toBe(id);
      expect(dead?.text()).toBe("poison");
      expect(dead?.correlationId).toBe("c-1");
      expect(dead?.attributes).toMatchObject({
        kind: "order",
        [DEAD_LETTER_ATTRIBUTES.reason]: "SchemaMismatch",
        [DEAD_LETTER_ATTRIBUTES.description]: "field total is missing",
        [DEAD_LETTER_ATTRIBUTES.sourceQueue]: queue,
      });
      expect((await client.admin.getQueueStats(queue)).deadLettered).toBe(1);
    },
  );

  contractCase(
    suite,
    "C21 after maxDeliveryCount deliveries without completion the message moves to the dead-letter queue",
    async (h) => {
      const client = await h.client();
      const queue = await h.queue(client, { maxDeliveryCount: 3 });
      const id = await client.sendMessage(queue, "keeps failing");
      for (let delivery = 1; delivery <= 2; delivery++) {
        const message = await client.receiveMessage(queue, 1_000);
        expect(message?.deliveryCount).toBe(delivery);
        await client.abandonMessage(message!.receiptHandle);
      }
      const third = await client.receiveMessage(queue, 1_000);
      expect(third?.deliveryCount).toBe(3);
      await h.advance(h.options.lockDurationMs + 200);
      expect(await client.receiveMessage(queue)).toBeNull();
      const dead = await client.receiveMessage(await client.admin.deadLetterQueueOf(queue), 1_000);
      expect(dead?.messageId).toBe(id);
      expect(dead?.text()).toBe("keeps failing");
    },
  );

  contractCase(
    suite,
    "C22 redrive moves dead letters back to their source queue, delivery count starting over",
    async (h, context) => {
      const client = await h.client();
      suite.requires(context, "C22", client.capabilities.redrive, "redrive");
      const queue = await h.queue(client);
      const id = await client.sendMessage(queue, "retry me later");
      const first = await client.receiveMessage(queue);
      await client.abandonMessage(first!.receiptHandle);
      const second = await client.receiveMessage(queue);
      expect(second?.deliveryCount).toBe(2);
      await client.deadLetterMessage(second!.receiptHandle, "DownstreamUnavailable");
      const deadLetterQueue = await client.admin.deadLetterQueueOf(queue);
      expect(await client.admin.redrive(deadLetterQueue)).toBe(1);
      const back = await client.receiveMessage(queue, 2_000);
      expect(back?.messageId).toBe(id);
      expect(back?.text()).toBe("retry me later");
      expect(back?.deliveryCount).toBe(1);
      expect(back?.attributes[DEAD_LETTER_ATTRIBUTES.reason]).toBeUndefined();
      expect(await client.receiveMessage(deadLetterQueue)).toBeNull();
    },
  );

  contractCase(
    suite,
    "C23 a message whose time to live ends before it is received is not delivered",
    async (h, context) => {
      const client = await h.client();
      suite.requires(context, "C23", client.capabilities.timeToLive, "timeToLive");
      const queue = await h.queue(client);
      const ttl = h.options.delayUnitMs;
      const id = await client.sendMessage(queue, { body: "stale", timeToLiveMs: ttl });
      await client.sendMessage(queue, { body: "fresh" });
      await h.advance(ttl + 200);
      const fresh = await client.receiveMessage(queue);
      expect(fresh?.text()).toBe("fresh");
      expect(await client.receiveMessage(queue)).toBeNull();
      const info = await client.admin.getQueue(queue);
      if (info?.deadLetterOnExpiration) {
        const dead = await client.receiveMessage(await client.admin.deadLetterQueueOf(queue), 1_000);
        expect(dead?.messageId).toBe(id);
        expect(dead?.attributes[DEAD_LETTER_ATTRIBUTES.reason]).toBe(DEAD_LETTER_REASONS.expired);
      }
    },
  );

  contractCase(
    suite,
    "C24 deadLetterQueueOf and deadLetterMessage agree: a queue without a dead-letter queue answers Unsupported from both",
    async (h) => {
      const client = await h.client();
      let queue: string;
      try {
        queue = await h.queue(client, { deadLetterQueue: null });
      } catch (error) {
        // Where every queue has a dead-letter queue of its own (Service Bus), there is none to lack.
        if (QueueError.is(error, "Unsupported")) return;
        throw error;
      }
      await expectCode(client.admin.deadLetterQueueOf(queue), "Unsupported");
      await client.sendMessage(queue, "nowhere to go");
      const message = await client.receiveMessage(queue);
      await expectCode(client.deadLetterMessage(message!.receiptHandle, "Poison"), "Unsupported");
      await client.completeMessage(message!.receiptHandle);
    },
  );
}
