import type { QueueEngine } from "../../engine/queue-engine.js";
import { deadLetterQueueRecord } from "../../engine/queue-settings.js";
import type { QueueRecord } from "../../engine/records.js";
import { type EntityAddress, findQueue, findServiceBusQueue, parseEntityPath } from "./entities.js";
import { AZURE_QUEUE_DEFAULTS, newQueueRecord, validateServiceBusQueueName } from "./queue-description.js";

/** The queue an entity path names, with what the path asks of it. */
export interface ResolvedEntity {
  readonly address: EntityAddress;
  /** The source queue. */
  readonly queue: QueueRecord;
  /** The engine queue to read or write: the source, or its dead-letter queue. */
  readonly target: QueueRecord;
}

/**
 * Finds the queue an entity path names (case-insensitively), creating it with Azure's defaults
 * (as the admin API and Config.json do) when `createQueues` allows; a dead-letter sub-queue is made on first use. Resolves
 * `undefined` for a path that names no queue.
 */
export function resolveEntity(
  engine: QueueEngine,
  path: string,
  createQueues: boolean,
): ResolvedEntity | undefined {
  const address = parseEntityPath(path);
  if (address === undefined) return undefined;
  // An engine queue that is only another's dead-letter queue is reached as that queue's sub-queue.
  let queue = findServiceBusQueue(engine, address.queue);
  if (queue === undefined) {
    // A name taken by a dead-letter queue cannot be made a queue of its own.
    if (!createQueues || findQueue(engine, address.queue) !== undefined) return undefined;
    validateServiceBusQueueName(address.queue);
    queue = newQueueRecord(engine, address.queue, AZURE_QUEUE_DEFAULTS);
    engine.insertQueue(queue);
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
