import type { QueueClient, ReceivedMessage } from "../../src/index.js";

/** How long the floor's receive waits on an empty queue: the queue is full until its last receive. */
const WAIT_MS = 1_000;

/**
 * The floor of a consumer: the loop a user would write by hand with the client's own calls. Up to
 * `concurrency` handlers run at once and as many messages more wait received (the consumer's
 * default prefetch); once half of that room is free a receive asks for what would fill it, so
 * receives come in runs as the consumer's do. A message is completed once its handler resolved.
 * No locks renewed, no retries, no metrics, no events: what is left is the client. Resolves once
 * `total` messages are completed; a failure of any call rejects.
 */
export function handLoop(
  client: QueueClient,
  queue: string,
  total: number,
  concurrency: number,
  handler: (message: ReceivedMessage) => Promise<unknown>,
): Promise<void> {
  const hold = concurrency * 2;
  const waiting: ReceivedMessage[] = [];
  let held = 0;
  let running = 0;
  let received = 0;
  let completed = 0;
  return new Promise<void>((resolve, reject) => {
    let wake: (() => void) | undefined;
    const start = (message: ReceivedMessage): void => {
      running++;
      handler(message)
        .then(() => client.completeMessage(message.receiptHandle))
        .then(() => {
          running--;
          held--;
          if (++completed === total) resolve();
          const next = waiting.shift();
          if (next !== undefined) start(next);
          if (held <= concurrency) wake?.();
        }, reject);
    };
    const receiveLoop = async (): Promise<void> => {
      while (received < total) {
        if (held > concurrency) {
          await new Promise<void>((woken) => {
            wake = woken;
          });
          wake = undefined;
          continue;
        }
        const messages = await client.receiveMessages(
          queue,
          Math.min(hold - held, total - received),
          WAIT_MS,
        );
        received += messages.length;
        held += messages.length;
        for (const message of messages) {
          if (running < concurrency) start(message);
          else waiting.push(message);
        }
      }
    };
    receiveLoop().catch(reject);
  });
}
