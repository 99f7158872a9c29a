import { QueueError } from "../../../core/errors.js";
import type { QueueRecord } from "../../../rules/queue-records.js";
import { belongsToTopic } from "../../../rules/topic-records.js";
import { deadLetterQueueNames, findQueue, findServiceBusQueue } from "../entities.js";
import {
  describeQueueRecord,
  newQueueRecord,
  type QueueDescription,
  queueUpdatedAt,
  updatedQueueRecord,
  validateServiceBusQueueName,
} from "../queue-description.js";
import { findTopic } from "../topic-entities.js";
import {
  type AdminAnswer,
  type AdminContext,
  DELETED,
  type EntityEntry,
  entityExists,
  entityNotFound,
  entryAnswer,
  feedAnswer,
} from "./admin-answers.js";
import { queueDescriptionXml } from "./queue-xml.js";
import { runtimeCounts } from "./runtime-counts.js";

function queueEntry(context: AdminContext, record: QueueRecord): EntityEntry {
  const updatedAt = new Date(queueUpdatedAt(record));
  const createdAt = new Date(record.createdAt);
  return {
    path: record.name,
    title: record.name,
    createdAt,
    updatedAt,
    content: queueDescriptionXml(describeQueueRecord(record), {
      counts: runtimeCounts(context.engine, record),
      createdAt,
      updatedAt,
      // The engine does not note reads and sends; the last change is the nearest it knows.
      accessedAt: updatedAt,
    }),
  };
}

function queueAnswer(context: AdminContext, record: QueueRecord, status: number): AdminAnswer {
  return entryAnswer(context, queueEntry(context, record), status);
}

/** `GET /<queue>`: the queue's description and counts, or 404. */
export function getQueue(context: AdminContext, name: string): AdminAnswer {
  const record = findServiceBusQueue(context.engine, name);
  if (record === undefined) throw entityNotFound(context, name);
  return queueAnswer(context, record, 200);
}

/**
 * `PUT /<queue>` without `If-Match`: creates the queue with Azure's defaults for what the
 * description leaves out; 409 when a queue of that name exists in any case, or the name is
 * already the dead-letter queue of another.
 */
export function createQueue(context: AdminContext, name: string, description: QueueDescription): AdminAnswer {
  validateServiceBusQueueName(name);
  const { engine } = context;
  const record = engine.transaction(() => {
    const topic = findTopic(engine, name);
    if (topic !== undefined) throw entityExists(context, topic.name);
    const existing = findQueue(engine, name);
    if (existing !== undefined) {
      const owner = engine.listQueues().find((queue) => queue.deadLetterQueue === existing.name);
      if (owner === undefined) throw entityExists(context, existing.name);
      throw new QueueError(
        "QueueAlreadyExists",
        `The name '${name}' is taken by the dead-letter queue of '${owner.name}'.`,
      );
    }
    const lower = name.toLowerCase();
    const owner = engine.listQueues().find((queue) => queue.deadLetterQueue?.toLowerCase() === lower);
    if (owner !== undefined)
      throw new QueueError(
        "QueueAlreadyExists",
        `The name '${name}' is taken by the dead-letter queue of '${owner.name}'.`,
      );
    const created = newQueueRecord(engine, name, description);
    engine.insertQueue(created);
    return created;
  });
  return queueAnswer(context, record, 201);
}

/**
 * `PUT /<queue>` with `If-Match: *`: replaces the queue's settings (its messages stay); 404 when
 * there is no such queue, 400 when it would change RequiresSession, which Azure does not allow.
 */
export function updateQueue(context: AdminContext, name: string, description: QueueDescription): AdminAnswer {
  const { engine } = context;
  const record = engine.transaction(() => {
    const existing = findServiceBusQueue(engine, name);
    if (existing === undefined) throw entityNotFound(context, name);
    if (existing.fifo !== description.requiresSession)
      throw new QueueError(
        "Validation",
        "The value for the RequiresSession property of an existing Queue cannot be changed.",
      );
    const updated = updatedQueueRecord(engine, existing, description);
    engine.updateQueue(updated);
    return updated;
  });
  return queueAnswer(context, record, 200);
}

/** `DELETE /<queue>`: deletes the queue, its messages and its dead-letter queue; 404 when there is none. */
export function deleteQueue(context: AdminContext, name: string): AdminAnswer {
  const { engine } = context;
  engine.transaction(() => {
    const existing = findServiceBusQueue(engine, name);
    if (existing === undefined) throw entityNotFound(context, name);
    engine.deleteQueue(existing.name);
    const dead = existing.deadLetterQueue;
    if (
      dead !== null &&
      engine.getQueueRecord(dead) !== undefined &&
      !engine.listQueues().some((queue) => queue.deadLetterQueue === dead)
    )
      engine.deleteQueue(dead);
  });
  return DELETED;
}

/**
 * `GET /$Resources/Queues?$skip=&$top=`: a page of the queues, sorted by name; dead-letter
 * queues and the queues of topics' subscriptions are not queues of their own.
 */
export function listQueues(context: AdminContext, query: URLSearchParams): AdminAnswer {
  const { engine } = context;
  const dead = deadLetterQueueNames(engine);
  const queues = engine.listQueues().filter((queue) => !dead.has(queue.name) && !belongsToTopic(queue.name));
  return feedAnswer(context, "$Resources/Queues", "Queues", queues, query, (record) =>
    queueEntry(context, record),
  );
}
