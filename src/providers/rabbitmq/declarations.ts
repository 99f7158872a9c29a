import type { Channel } from "amqplib";
import type { QueueRecord } from "../../rules/queue-records.js";
import type { BrokerNames } from "./names.js";

/**
 * The arguments of a queue's broker queue (and of each of its sessions' queues): a quorum queue
 * counts deliveries (`x-delivery-count`) and dead-letters after `x-delivery-limit` returns, so the
 * limit is one less than queue-runtime's count of deliveries (none without a dead-letter queue,
 * where nothing is dropped); dead letters go at least once
 * (`at-least-once` needs `reject-publish`) through the default exchange to the dead-letter queue.
 */
export function queueArguments(
  record: QueueRecord,
  names: BrokerNames,
  deadLetterTarget?: string,
): Record<string, unknown> {
  const args: Record<string, unknown> = { "x-queue-type": "quorum" };
  // A queue with nowhere to dead-letter drops nothing: the limit would drop.
  if (record.deadLetterQueue !== null) {
    if (record.maxDeliveryCount !== null) args["x-delivery-limit"] = record.maxDeliveryCount - 1;
    args["x-dead-letter-exchange"] = "";
    args["x-dead-letter-routing-key"] = deadLetterTarget ?? names.queue(record.deadLetterQueue);
    args["x-dead-letter-strategy"] = "at-least-once";
    args["x-overflow"] = "reject-publish";
  }
  return args;
}

/**
 * Declares the broker queue of `record` (idempotent); a session's queue dead-letters into
 * `deadLetterTarget`, the same session of a FIFO dead-letter queue.
 */
export async function declareQueue(
  channel: Channel,
  name: string,
  record: QueueRecord,
  names: BrokerNames,
  deadLetterTarget?: string,
): Promise<void> {
  await channel.assertQueue(name, {
    durable: true,
    arguments: queueArguments(record, names, deadLetterTarget),
  });
}

/**
 * Declares the queue that holds messages for `target` for `delayMs`: every message in it expires
 * after the same time (`x-message-ttl`), so they leave in order, and the broker dead-letters each
 * back to `target` through the default exchange, at least once.
 */
export async function declareHolding(
  channel: Channel,
  holding: string,
  target: string,
  delayMs: number,
): Promise<void> {
  await channel.assertQueue(holding, {
    durable: true,
    arguments: {
      "x-queue-type": "quorum",
      "x-message-ttl": delayMs,
      "x-dead-letter-exchange": "",
      "x-dead-letter-routing-key": target,
      "x-dead-letter-strategy": "at-least-once",
      "x-overflow": "reject-publish",
    },
  });
}

/**
 * Takes a session's lock: an exclusive queue, which only the connection that declared it may use
 * (another's declare is refused with 405 RESOURCE_LOCKED) and which the broker deletes when that
 * connection ends, so the lock holds across processes and dies with its holder. It holds no
 * message and no file handle; the holder deletes it to let the session go.
 */
export async function takeSessionLock(channel: Channel, lock: string): Promise<void> {
  await channel.assertQueue(lock, { exclusive: true, durable: false, autoDelete: false });
}

/**
 * Declares the queue that holds a session's state: a classic queue of length 1, so a new state
 * pushes the old one out in one publish. Made when a state is first set.
 */
export async function declareSessionState(channel: Channel, state: string): Promise<void> {
  await channel.assertQueue(state, {
    durable: true,
    arguments: { "x-max-length": 1, "x-overflow": "drop-head" },
  });
}
