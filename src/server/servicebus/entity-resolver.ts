import type { QueueOptions } from "../../core/admin.js";
import type { QueueEngine } from "../../engine/queue-engine.js";
import { deadLetterQueueRecord } from "../../engine/queue-settings.js";
import type { QueueRecord } from "../../engine/records.js";
import { type EntityAddress, findQueue, parseEntityPath } from "./entities.js";

/** A queue Azure creates when none is configured: 1 minute locks, 10 deliveries, no time to live, no expiry dead letters, no duplicate detection. */
export const SERVICE_BUS_QUEUE_DEFAULTS: QueueOptions = Object.freeze({
  lockDurationMs: 60_000,
  maxDeliveryCount: 10,
  defaultTimeToLiveMs: null,
  deadLetterOnExpiration: false,
  deduplicationWindowMs: 0,
});

/** The queue an entity path names, with what the path asks of it. */
export interface ResolvedEntity {
  readonly address: EntityAddress;
  /** The source queue. */
  readonly queue: QueueRecord;
  /** The engine queue to read or write: the source, or its dead-letter queue. */
  readonly target: QueueRecord;
}

/**
 * Finds the queue an entity path names (case-insensitively), creating it with Service Bus's
 * defaults when `createQueues` allows; a dead-letter sub-queue is made on first use. Resolves
 * `undefined` for a path that names no queue.
 */
export function resolveEntity(
  engine: QueueEngine,
  path: string,
  createQueues: boolean,
): ResolvedEntity | undefined {
  const address = parseEntityPath(path);
  if (address === undefined) return undefined;
  let queue = findQueue(engine, address.queue);
  if (queue === undefined) {
    if (!createQueues) return undefined;
    engine.createQueue(address.queue, SERVICE_BUS_QUEUE_DEFAULTS);
    queue = engine.getQueueRecord(address.queue)!;
  }
  if (!address.deadLetter) return { address, queue, target: queue };
  if (queue.deadLetterQueue === null) return undefined;
  let target = engine.getQueueRecord(queue.deadLetterQueue);
  if (target === undefined) {
    engine.insertQueue(deadLetterQueueRecord(queue.deadLetterQueue, queue, engine.clock.now()));
    target = engine.getQueueRecord(queue.deadLetterQueue)!;
  }
  return { address, queue, target };
}
