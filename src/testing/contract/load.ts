import { expect } from "vitest";
import type { QueueClient } from "../../core/queue-client.js";
import type { ResolvedContractOptions } from "./harness.js";
import { contractCase, type Suite } from "./suite.js";

const RECEIVERS = 8;
/** C60 is about sharing, not locks: a lock long enough for a batch's completes under load. */
const LOAD_LOCK_MS = 30_000;
/** C60 is about sharing, not speed: 16,000 round trips may take a minute where the machine is busy. */
const LOAD_TIMEOUT_MS = 120_000;

/** C60: many receivers, each message exactly once. */
export function loadCases(suite: Suite, options: ResolvedContractOptions): void {
  const messages = options.loadMessages;
  contractCase(
    suite,
    `C60 ${RECEIVERS} receivers draining ${messages} messages each get every message exactly once`,
    async (h) => {
      const clients = [await h.client(), await h.client()];
      const queue = await h.queue(clients[0]!, {
        lockDurationMs: Math.max(h.options.lockDurationMs, LOAD_LOCK_MS),
      });
      const bodies = Array.from({ length: messages }, (_, i) => `load-${i}`);
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
      expect(completed).toBe(messages);
      expect(seen.size).toBe(messages);
      expect([...seen.values()].every((count) => count === 1)).toBe(true);
      const stats = await clients[0]!.admin.getQueueStats(queue);
      expect(stats.active + stats.inFlight + stats.delayed).toBe(0);
    },
    LOAD_TIMEOUT_MS,
  );
}
