import type { QueueEngine } from "../../engine/queue-engine.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import { deadLetterQueueRecord } from "../../rules/queue-records.js";
import { type EntityAddress, findQueue, findServiceBusQueue, parseEntityPath } from "./entities.js";
import { AZURE_QUEUE_DEFAULTS, newQueueRecord, validateServiceBusQueueName } from "./queue-description.js";
import { findTopic, resolveSubscription } from "./topic-entities.js";

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
 * `undefined` for a path that names no queue. A subscription's path (`<topic>/Subscriptions/<sub>`)
 * names the subscription's engine queue, never made here; a topic's name is not a queue's.
 */
export function resolveEntity(
  engine: QueueEngine,
  path: string,
  createQueues: boolean,
): ResolvedEntity | undefined {
  const subscription = resolveSubscription(engine, path);
  if (subscription === undefined) return undefined;
  if (subscription !== "not-subscription")
    return withTarget(engine, subscription.address, subscription.queue);
  const address = parseEntityPath(path);
  if (address === undefined) return undefined;
  // An engine queue that is only another's dead-letter queue is reached as that queue's sub-queue.
  let queue = findServiceBusQueue(engine, address.queue);
  if (queue === undefined) {
    // A name taken by a dead-letter queue cannot be made a queue of its own.
    // Nor can a topic's: `<topic>/$management` is the topic's node, not a new queue's.
    if (!createQueues || findQueue(engine, address.queue) !== undefined) return undefined;
    if (findTopic(engine, address.queue) !== undefined) return undefined;
    validateServiceBusQueueName(address.queue);
    queue = newQueueRecord(engine, address.queue, AZURE_QUEUE_DEFAULTS);
    engine.insertQueue(queue);
  }
  return withTarget(engine, address, queue);
}

/** `queue` as `address` reaches it: itself, or its dead-letter sub-queue (`undefined` when it has none). */
function withTarget(
  engine: QueueEngine,
  address: EntityAddress,
  queue: QueueRecord,
): ResolvedEntity | undefined {
  if (!address.deadLetter) return { address, queue, target: queue };
  const target = deadLetterTarget(engine, queue);
  return target === undefined ? undefined : { address, queue, target };
}

/** The engine queue of `queue`'s dead-letter sub-queue, made on first use; `undefined` when it has none. */
function deadLetterTarget(engine: QueueEngine, queue: QueueRecord): QueueRecord | undefined {
  if (queue.deadLetterQueue === null) return undefined;
  let target = engine.getQueueRecord(queue.deadLetterQueue);
  if (target === undefined) {
    engine.insertQueue(deadLetterQueueRecord(queue.deadLetterQueue, queue, engine.clock.now()));
    target = engine.getQueueRecord(queue.deadLetterQueue)!;
  }
  return target;
}

/**
 * An entity resolved when its link attached, as it stands now: a link attached before its queue
 * was deleted and made again reads the queue made since (its settings, its dead-letter queue).
 * One deleted for good stays as it was, so what is done through it fails with `QueueNotFound`.
 */
export function currentEntity(engine: QueueEngine, entity: ResolvedEntity): ResolvedEntity {
  const queue = engine.getQueueRecord(entity.queue.name);
  if (queue === undefined || queue === entity.queue) return entity;
  if (!entity.address.deadLetter) return { address: entity.address, queue, target: queue };
  return { address: entity.address, queue, target: deadLetterTarget(engine, queue) ?? entity.target };
}
