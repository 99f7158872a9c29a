import { QueueError } from "../../../core/errors.js";
import type { QueueRecord } from "../../../rules/queue-records.js";
import type { TopicRecord } from "../../../rules/topic-records.js";
import { findQueue } from "../entities.js";
import {
  describeQueue,
  describeQueueRecord,
  engineOptions,
  type QueueDescription,
  queueUpdatedAt,
  updatedQueueRecord,
} from "../queue-description.js";
import { describeTopicRecord } from "../topic-description.js";
import { type FoundSubscription, findSubscription, findTopic } from "../topic-entities.js";
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
import { runtimeCounts } from "./runtime-counts.js";
import { type SubscriptionPut, subscriptionDescriptionXml } from "./subscription-xml.js";
import { requireTopic } from "./topic-operations.js";

/** Where a subscription keeps `DeadLetteringOnFilterEvaluationExceptions` among its queue's properties. */
const FILTER_EXCEPTIONS_PROPERTY = "servicebus:DeadLetteringOnFilterEvaluationExceptions";
// Azure's rule for subscription names: no '/', at most 50 characters.
const SUBSCRIPTION_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,48}[A-Za-z0-9])?$/;

/** The admin path of a subscription, as the SDK reads its names from an entry's id. */
export function subscriptionEntityPath(topic: string, subscription: string): string {
  return `${topic}/Subscriptions/${subscription}`;
}

/** The subscription a topic's and a subscription's name mean (in any case), or 404 naming what is missing. */
export function requireSubscription(context: AdminContext, topic: string, name: string): FoundSubscription {
  const found = findSubscription(context.engine, requireTopic(context, topic).name, name);
  if (found === undefined) throw entityNotFound(context, subscriptionEntityPath(topic, name));
  return found;
}

function subscriptionEntry(context: AdminContext, found: FoundSubscription): EntityEntry {
  const { topic, record, queue } = found;
  const createdAt = new Date(queue.createdAt);
  const updatedAt = new Date(queueUpdatedAt(queue));
  return {
    path: subscriptionEntityPath(topic.name, record.name),
    title: record.name,
    createdAt,
    updatedAt,
    content: subscriptionDescriptionXml(describeQueueRecord(queue), {
      counts: runtimeCounts(context.engine, queue),
      deadLetteringOnFilterEvaluationExceptions: queue.properties[FILTER_EXCEPTIONS_PROPERTY] !== "false",
      createdAt,
      updatedAt,
      accessedAt: updatedAt,
    }),
  };
}

/** `GET /<topic>/Subscriptions/<subscription>`: its description and counts. */
export function getSubscription(context: AdminContext, topic: string, name: string): AdminAnswer {
  return entryAnswer(context, subscriptionEntry(context, requireSubscription(context, topic, name)), 200);
}

/** A subscription's description: the PUT's settings, duplicate detection its topic's (the engine deduplicates per queue). */
function describeSubscription(topic: TopicRecord, put: SubscriptionPut): QueueDescription {
  const described = describeTopicRecord(topic);
  return {
    ...describeQueue(put.properties),
    requiresDuplicateDetection: described.requiresDuplicateDetection,
    duplicateDetectionHistoryTimeWindowMs: described.duplicateDetectionHistoryTimeWindowMs,
  };
}

/**
 * The engine queue a `ForwardTo` names (`sb://host/orders`, or only `orders`), found in any
 * case; 404 when there is none. Forwarding to a topic is refused: the engine forwards to queues.
 */
function forwardTarget(context: AdminContext, forwardTo: string | undefined): string | null {
  if (forwardTo === undefined) return null;
  const name = /^[a-z][a-z0-9+.-]*:\/\//i.test(forwardTo)
    ? decodeURIComponent(new URL(forwardTo).pathname.replace(/^\/+/, ""))
    : forwardTo;
  if (findTopic(context.engine, name) !== undefined)
    throw new QueueError(
      "Validation",
      `ForwardTo '${name}': this server forwards to queues only, not to topics.`,
    );
  const queue = findQueue(context.engine, name);
  if (queue === undefined) throw entityNotFound(context, name);
  return queue.name;
}

/** The subscription's queue with the description's settings and the `servicebus:` properties kept. */
function describedQueue(
  context: AdminContext,
  queue: QueueRecord,
  description: QueueDescription,
  put: SubscriptionPut,
): QueueRecord {
  const updated = updatedQueueRecord(context.engine, queue, description);
  return {
    ...updated,
    properties: {
      ...updated.properties,
      [FILTER_EXCEPTIONS_PROPERTY]: String(put.deadLetteringOnFilterEvaluationExceptions),
    },
  };
}

/**
 * `PUT /<topic>/Subscriptions/<subscription>` without `If-Match`: creates the subscription with
 * its `DefaultRuleDescription`, else `$Default` matching everything; 404 for a missing topic or
 * forwarding queue, 409 when the topic has a subscription of that name in any case.
 */
export function createSubscription(
  context: AdminContext,
  topicName: string,
  name: string,
  put: SubscriptionPut,
): AdminAnswer {
  if (!SUBSCRIPTION_NAME.test(name))
    throw new QueueError(
      "Validation",
      `subscription name ${JSON.stringify(name)} must be 1 to 50 letters, digits, '.', '-' and '_', starting and ending with a letter or digit`,
    );
  const { engine } = context;
  const found = engine.transaction(() => {
    const topic = requireTopic(context, topicName);
    const existing = findSubscription(engine, topic.name, name);
    if (existing !== undefined)
      throw entityExists(context, subscriptionEntityPath(topic.name, existing.record.name));
    const description = describeSubscription(topic, put);
    const forwardTo = forwardTarget(context, description.forwardTo);
    const { record, queue } = engine.topics.subscribe(topic.name, name, {
      ...engineOptions(description),
      ...(put.defaultRule === undefined ? {} : { rules: [put.defaultRule] }),
      ...(forwardTo === null ? {} : { forwardTo }),
    });
    const described = describedQueue(context, queue, description, put);
    engine.updateQueue(described);
    return { topic, record, queue: described };
  });
  return entryAnswer(context, subscriptionEntry(context, found), 201);
}

/**
 * `PUT /<topic>/Subscriptions/<subscription>` with `If-Match: *`: replaces its settings (its
 * rules and messages stay); 400 when it would change RequiresSession, as on Azure.
 */
export function updateSubscription(
  context: AdminContext,
  topicName: string,
  name: string,
  put: SubscriptionPut,
): AdminAnswer {
  const { engine } = context;
  const found = engine.transaction(() => {
    const { topic, record, queue } = requireSubscription(context, topicName, name);
    const description = describeSubscription(topic, put);
    if (queue.fifo !== description.requiresSession)
      throw new QueueError(
        "Validation",
        "The value for the RequiresSession property of an existing Subscription cannot be changed.",
      );
    const forwardTo = forwardTarget(context, description.forwardTo);
    const forwarded =
      forwardTo === record.forwardTo ? record : engine.topics.forward(topic.name, record.name, forwardTo);
    const described = describedQueue(context, queue, description, put);
    engine.updateQueue(described);
    return { topic, record: forwarded, queue: described };
  });
  return entryAnswer(context, subscriptionEntry(context, found), 200);
}

/** `DELETE /<topic>/Subscriptions/<subscription>`: deletes it with its messages. */
export function deleteSubscription(context: AdminContext, topic: string, name: string): AdminAnswer {
  const found = requireSubscription(context, topic, name);
  context.engine.topics.unsubscribe(found.topic.name, found.record.name);
  return DELETED;
}

/** `GET /<topic>/Subscriptions?$skip=&$top=`: a page of the topic's subscriptions, sorted by name; 404 for a missing topic. */
export function listSubscriptions(
  context: AdminContext,
  topicName: string,
  query: URLSearchParams,
): AdminAnswer {
  const topic = requireTopic(context, topicName);
  const found = context.engine.topics
    .withSubscriptions(topic.name)
    .subscriptions.map((record) => findSubscription(context.engine, topic.name, record.name))
    .filter((one) => one !== undefined);
  return feedAnswer(context, `${topic.name}/Subscriptions`, "Subscriptions", found, query, (one) =>
    subscriptionEntry(context, one),
  );
}
