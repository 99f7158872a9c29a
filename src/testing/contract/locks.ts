import { expect } from "vitest";
import { QueueError } from "../../core/errors.js";
import { ReceiptHandle } from "../../core/receipt-handle.js";
import { rejection } from "./harness.js";
import { contractCase, type Suite } from "./suite.js";

async function expectInvalidReceipt(call: Promise<unknown>): Promise<void> {
  const error = await rejection(call);
  expect(error).toBeInstanceOf(QueueError);
  expect((error as QueueError).code).toBe("InvalidReceipt");
}

/** C10–C16: locks and settlement. */
export function lockCases(suite: Suite): void {
  contractCase(
    suite,
    "C10 a received message is invisible to other receivers until its lock ends or it is settled",
    async (h) => {
      const first = await h.client();
      const second = await h.client();
      const queue = await h.queue(first);
      await first.sendMessage(queue, "locked");
      const message = await first.receiveMessage(queue);
      expect(message?.text()).toBe("locked");
      expect(message?.lockedUntil.getTime()).toBeGreaterThan(h.now());
      expect(await second.receiveMessage(queue)).toBeNull();
      await h.advance(h.options.lockDurationMs / 2);
      expect(await second.receiveMessage(queue)).toBeNull();
      const stats = await first.admin.getQueueStats(queue);
      // Where the provider cannot tell locked messages apart, they count as active.
      if (first.capabilities.lockedCount) expect([stats.inFlight, stats.active]).toEqual([1, 0]);
      else expect([stats.inFlight, stats.active]).toEqual([0, 1]);
    },
  );

  contractCase(suite, "C11 completeMessage removes the message: it is never delivered again", async (h) => {
    const client = await h.client();
    const queue = await h.queue(client);
    await client.sendMessage(queue, "done");
    const message = await client.receiveMessage(queue);
    await client.completeMessage(message!.receiptHandle);
    await h.advance(h.options.lockDurationMs + 1_000);
    expect(await client.receiveMessage(queue)).toBeNull();
    const stats = await client.admin.getQueueStats(queue);
    expect(stats.active + stats.inFlight + stats.delayed).toBe(0);
  });

  contractCase(
    suite,
    "C12 abandonMessage makes the message visible at once with deliveryCount + 1, or after delayMs",
    async (h) => {
      const client = await h.client();
      const queue = await h.queue(client);
      const id = await client.sendMessage(queue, "again");
      const first = await client.receiveMessage(queue);
      expect(first?.deliveryCount).toBe(1);
      await client.abandonMessage(first!.receiptHandle);
      const second = await client.receiveMessage(queue);
      expect(second?.messageId).toBe(id);
      expect(second?.deliveryCount).toBe(2);
      const delayMs = h.options.delayUnitMs * 2;
      await client.abandonMessage(second!.receiptHandle, { delayMs });
      expect(await client.receiveMessage(queue)).toBeNull();
      await h.advance(delayMs / 2);
      expect(await client.receiveMessage(queue)).toBeNull();
      await h.advance(delayMs / 2 + 200);
      const third = await client.receiveMessage(queue, 1_000);
      expect(third?.messageId).toBe(id);
      expect(third?.deliveryCount).toBe(3);
    },
  );

  contractCase(
    suite,
    "C13 an expired lock makes the message visible again with deliveryCount + 1; the old receipt is invalid",
    async (h) => {
      const client = await h.client();
      const queue = await h.queue(client);
      const id = await client.sendMessage(queue, "slow consumer");
      const first = await client.receiveMessage(queue);
      await h.advance(h.options.lockDurationMs + 200);
      const second = await client.receiveMessage(queue, 1_000);
      expect(second?.messageId).toBe(id);
      expect(second?.deliveryCount).toBe(2);
      await expectInvalidReceipt(client.completeMessage(first!.receiptHandle));
      await expectInvalidReceipt(client.abandonMessage(first!.receiptHandle));
      await client.completeMessage(second!.receiptHandle);
    },
  );

  contractCase(
    suite,
    "C14 settling twice, or with a receipt never issued, fails with InvalidReceipt",
    async (h) => {
      const client = await h.client();
      const queue = await h.queue(client);
      await client.sendMessage(queue, "once");
      const message = await client.receiveMessage(queue);
      await client.completeMessage(message!.receiptHandle);
      await expectInvalidReceipt(client.completeMessage(message!.receiptHandle));
      await expectInvalidReceipt(client.deadLetterMessage(message!.receiptHandle, "Late"));
      const forged = new ReceiptHandle(client.providerType, queue, "424242.forged-lock", h.now() + 60_000);
      await expectInvalidReceipt(client.completeMessage(forged));
      await expectInvalidReceipt(client.completeMessage("not a receipt handle"));
    },
  );

  contractCase(
    suite,
    "C15 renewMessageLock extends the lock from now, past its original expiry",
    async (h, context) => {
      const client = await h.client();
      suite.requires(context, "C15", client.capabilities.lockRenewal, "lockRenewal");
      const other = await h.client();
      const queue = await h.queue(client);
      await client.sendMessage(queue, "long work");
      const message = await client.receiveMessage(queue);
      const originalExpiry = message!.lockedUntil.getTime();
      await h.advance(h.options.lockDurationMs * 0.6);
      const renewed = await client.renewMessageLock(message!.receiptHandle);
      expect(renewed.getTime()).toBeGreaterThan(originalExpiry);
      await h.advance(h.options.lockDurationMs * 0.6);
      expect(h.now()).toBeGreaterThan(originalExpiry);
      expect(await other.receiveMessage(queue)).toBeNull();
      await client.completeMessage(message!.receiptHandle);
    },
  );

  contractCase(
    suite,
    "C16 a receipt written as a string and parsed back settles the message from a second client",
    async (h) => {
      const receiver = await h.client();
      const settler = await h.client();
      const queue = await h.queue(receiver);
      await receiver.sendMessage(queue, "hand over");
      const message = await receiver.receiveMessage(queue);
      const text = String(message!.receiptHandle);
      const parsed = ReceiptHandle.parse(text);
      expect(parsed.queue).toBe(queue);
      expect(parsed.providerType).toBe(receiver.providerType);
      expect(parsed.expiresAt.getTime()).toBe(message!.receiptHandle.expiresAt.getTime());
      await settler.completeMessage(parsed);
      await h.advance(h.options.lockDurationMs + 200);
      expect(await receiver.receiveMessage(queue)).toBeNull();
    },
  );
}
