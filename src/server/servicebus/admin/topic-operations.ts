import { QueueError } from "../../../core/errors.js";
import { subscriptionPath } from "../../../core/topics.js";
import type { TopicRecord } from "../../../rules/topic-records.js";
import { findQueue } from "../entities.js";
import { queueUpdatedAt, validateServiceBusQueueName } from "../queue-description.js";
import { MAX_MESSAGE_BYTES } from "../servicebus-server.js";
import { describeTopicRecord, type TopicDescription, topicProperties } from "../topic-description.js";
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
import { runtimeCounts, sumCounts } from "./runtime-counts.js";
import { topicDescriptionXml } from "./topic-xml.js";

function topicEntry(context: AdminContext, record: TopicRecord): EntityEntry {
  const { engine } = context;
  const createdAt = new Date(record.createdAt);
  const updatedAt = new Date(queueUpdatedAt(record));
  const queues = engine.topics
    .withSubscriptions(record.name)
    .subscriptions.map((subscription) =>
      engine.getQueueRecord(subscriptionPath(record.name, subscription.name)),
    )
    .filter((queue) => queue !== undefined);
  return {
    path: record.name,
    title: record.name,
    createdAt,
    updatedAt,
    content: topicDescriptionXml(describeTopicRecord(record), {
      counts: sumCounts(queues.map((queue) => runtimeCounts(engine, queue))),
      subscriptionCount: queues.length,
      createdAt,
      updatedAt,
      // The engine does not note sends; the last change is the nearest it knows.
      accessedAt: updatedAt,
    }),
  };
}

/** The engine's largest message for a topic: its `MaxMessageSizeInKilobytes`, at most the server's. */
function maxMessageBytesOf(description: TopicDescription): number {
  const kilobytes = description.maxMessageSizeInKilobytes;
  return kilobytes === undefined ? MAX_MESSAGE_BYTES : Math.min(MAX_MESSAGE_BYTES, kilobytes * 1024);
}

/** The topic a name means (in any case), or 404. */
export function requireTopic(context: AdminContext, name: string): TopicRecord {
  const found = findTopic(context.engine, name);
  if (found === undefined) throw entityNotFound(context, name);
  return found;
}

/** `GET /<topic>`: the topic's description and counts. */
export function getTopic(context: AdminContext, record: TopicRecord): AdminAnswer {
  return entryAnswer(context, topicEntry(context, record), 200);
}

/**
 * `PUT /<topic>` with a `TopicDescription`, without `If-Match`: creates the topic; 409 when a
 * topic or a queue has that name in any case (they share one namespace, as on Azure).
 */
export function createTopic(context: AdminContext, name: string, description: TopicDescription): AdminAnswer {
  validateServiceBusQueueName(name);
  const { engine } = context;
  const record = engine.transaction(() => {
    const taken = findTopic(engine, name)?.name ?? findQueue(engine, name)?.name;
    if (taken !== undefined) throw entityExists(context, taken);
    engine.topics.create(name, {}, maxMessageBytesOf(description));
    return engine.topics.update(name, settingsOf(context, description));
  });
  return entryAnswer(context, topicEntry(context, record), 201);
}

function settingsOf(context: AdminContext, description: TopicDescription) {
  return {
    defaultTimeToLiveMs: description.defaultMessageTimeToLiveMs,
    maxMessageBytes: maxMessageBytesOf(description),
    properties: topicProperties(description, context.engine.clock.now()),
  };
}

/**
 * `PUT /<topic>` with `If-Match: *`: replaces the topic's settings; 400 when it would change
 * RequiresDuplicateDetection, which Azure does not allow. A new duplicate detection window
 * applies to every subscription's queue, where the engine deduplicates.
 */
export function updateTopic(context: AdminContext, name: string, description: TopicDescription): AdminAnswer {
  const { engine } = context;
  const record = engine.transaction(() => {
    const existing = requireTopic(context, name);
    if (describeTopicRecord(existing).requiresDuplicateDetection !== description.requiresDuplicateDetection)
      throw new QueueError(
        "Validation",
        "The value for the RequiresDuplicateDetection property of an existing Topic cannot be changed.",
      );
    const window = description.requiresDuplicateDetection
      ? description.duplicateDetectionHistoryTimeWindowMs
      : 0;
    for (const subscription of engine.topics.withSubscriptions(existing.name).subscriptions) {
      const queue = engine.getQueueRecord(subscriptionPath(existing.name, subscription.name));
      if (queue !== undefined && queue.deduplicationWindowMs !== window)
        engine.updateQueue({ ...queue, deduplicationWindowMs: window });
    }
    return engine.topics.update(existing.name, settingsOf(context, description));
  });
  return entryAnswer(context, topicEntry(context, record), 200);
}

/** `DELETE /<topic>`: deletes the topic with its subscriptions and their messages. */
export function deleteTopic(context: AdminContext, record: TopicRecord): AdminAnswer {
  context.engine.topics.delete(record.name);
  return DELETED;
}

/** `GET /$Resources/Topics?$skip=&$top=`: a page of the topics, sorted by name. */
export function listTopics(context: AdminContext, query: URLSearchParams): AdminAnswer {
  return feedAnswer(context, "$Resources/Topics", "Topics", context.engine.topics.list(), query, (record) =>
    topicEntry(context, record),
  );
}
