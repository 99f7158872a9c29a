import { QueueError } from "../../core/errors.js";
import type { Receiver } from "../receiver.js";
import { pushedBody } from "./pushed-body.js";

/** A message of a Cloudflare Queues batch, as a consumer Worker is handed it. */
export interface CloudflareQueueMessage {
  readonly id: string;
  readonly body: unknown;
  ack(): void;
  retry(options?: { delaySeconds?: number }): void;
}

/** The batch a Cloudflare Queues consumer's `queue()` handler is handed (`MessageBatch`). */
export interface CloudflareMessageBatch {
  readonly queue: string;
  readonly messages: readonly CloudflareQueueMessage[];
}

/** Options of {@link cloudflareQueueConsumer}. */
export interface PushAdapterOptions {
  /** The receiver's queue the batches are for (default: the one whose `queue` or `name` is the platform's queue name). */
  readonly queue?: string;
}

/**
 * A Cloudflare Queues consumer: `export default { queue: cloudflareQueueConsumer(receiver) }`.
 * Each message is acknowledged once the store has taken it (kept, a repeat, or parked) and
 * retried when it could not, so that the queue's dead-letter queue takes one that keeps failing.
 */
export function cloudflareQueueConsumer(
  receiver: Receiver,
  options: PushAdapterOptions = {},
): (batch: CloudflareMessageBatch) => Promise<void> {
  return async (batch) => {
    const queue = options.queue ?? receiver.queueNamed(batch.queue);
    if (queue === undefined)
      throw new QueueError(
        "QueueNotFound",
        `the receiver reads no queue for Cloudflare queue ${batch.queue}`,
      );
    const outcomes = await receiver.receiveBatch(
      queue,
      batch.messages.map((message) => ({ body: pushedBody(message.body) })),
    );
    for (const [index, message] of batch.messages.entries())
      if (outcomes[index] === "left") message.retry();
      else message.ack();
  };
}
