import type { QueueClient } from "../src/index.js";
import type { DrainWork } from "./lib.js";

/**
 * A queue-runtime client's side of {@link drain}: `sendMessages` of `bodies`, `receiveMessages` of
 * up to as many (waiting up to 1 s once everything is sent), `completeMessage` of each.
 */
export function providerWork(client: QueueClient, queue: string, bodies: readonly string[]): DrainWork {
  return {
    send: () => client.sendMessages(queue, bodies),
    async receiveAndSettle(_worker, allSent) {
      const messages = await client.receiveMessages(queue, bodies.length, allSent ? 1_000 : 0);
      // Completes of one moment travel as one DeleteMessageBatch.
      await Promise.all(messages.map((message) => client.completeMessage(message.receiptHandle)));
      return messages.length;
    },
  };
}

/**
 * The same one message at a time: `sendMessage` of `body`, `receiveMessage` (waiting up to 1 s
 * once everything is sent), `completeMessage` of what came.
 */
export function providerSingleWork(client: QueueClient, queue: string, body: string): DrainWork {
  return {
    send: () => client.sendMessage(queue, body),
    async receiveAndSettle(_worker, allSent) {
      const message = await client.receiveMessage(queue, allSent ? 1_000 : 0);
      if (message === null) return 0;
      await client.completeMessage(message.receiptHandle);
      return 1;
    },
  };
}
