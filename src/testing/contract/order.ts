import { expect } from "vitest";
import { drain } from "./messages.js";
import { contractCase, type Suite } from "./suite.js";

/** C30–C31: delays and order. */
export function orderCases(suite: Suite): void {
  contractCase(
    suite,
    "C30 a message sent with delayMs is not received before the delay ends, and is after",
    async (h, context) => {
      const client = await h.client();
      suite.requires(context, "C30", client.capabilities.delayedDelivery, "delayedDelivery");
      const queue = await h.queue(client);
      const delayMs = h.options.delayUnitMs * 2;
      await client.sendMessage(queue, { body: "later", delayMs });
      expect(await client.receiveMessage(queue)).toBeNull();
      await h.advance(delayMs - h.options.delayUnitMs / 2);
      expect(await client.receiveMessage(queue)).toBeNull();
      expect((await client.admin.getQueueStats(queue)).delayed).toBe(1);
      await h.advance(h.options.delayUnitMs / 2 + 200);
      const message = await client.receiveMessage(queue, 1_000);
      expect(message?.text()).toBe("later");
    },
  );

  contractCase(
    suite,
    "C31 messages sent one after another are received in that order when nothing fails",
    async (h) => {
      const client = await h.client();
      const queue = await h.queue(client);
      const bodies = Array.from({ length: 30 }, (_, i) => `step-${i}`);
      for (const body of bodies) await client.sendMessage(queue, body);
      const received: string[] = [];
      for (;;) {
        const message = await client.receiveMessage(queue);
        if (message === null) break;
        received.push(message.text());
        await client.completeMessage(message.receiptHandle);
      }
      if (client.capabilities.ordering === "fifo") expect(received).toEqual(bodies);
      else expect([...received].sort()).toEqual([...bodies].sort());
      expect(await drain(client, queue, 1)).toHaveLength(0);
    },
  );
}
