import { expect } from "vitest";
import type { QueueClient } from "../../core/queue-client.js";
import { contractCase, type Suite } from "./suite.js";

const RECEIVERS = 8;
const MESSAGES = 2_000;

/** C60: many receivers, each message exactly once. */
export function loadCases(suite: Suite): void {
  contractCase(
    suite,
    `C60 ${RECEIVERS} receivers draining ${MESSAGES} messages each get every message exactly once`,
    async (h) => {
      const clients = [await h.client(), await h.client()];
      const queue = await h.queue(clients[0]!);
      const bodies = Array.from({ length: MESSAGES }, (_, i) => `load-${i}`);
      await clients[0]!.sendMessages(queue, bodies);
      const seen = new Map<string, number>();
      let completed = 0;
      const receiver = async (client: QueueClient) => {
        for (;;) {
          const batch = await client.receiveMessages(queue, 10);
          if (batch.length === 0) return;
          for (const message of batch) {
            seen.set(message.text(), (seen.get(message.text()) ?? 0) + 1);
            await client.completeMessage(message.receiptHandle);
            completed++;
          }
        }
      };
      await Promise.all(Array.from({ length: RECEIVERS }, (_, i) => receiver(clients[i % clients.length]!)));
      expect(completed).toBe(MESSAGES);
      expect(seen.size).toBe(MESSAGES);
      expect([...seen.values()].every((count) => count === 1)).toBe(true);
      const stats = await clients[0]!.admin.getQueueStats(queue);
      expect(stats.active + stats.inFlight + stats.delayed).toBe(0);
    },
  );
}
