import { parseSubscriptionPath, subscriptionPath } from "../../core/topics.js";
import type { QueueEngine } from "../../engine/queue-engine.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import type { SubscriptionRecord, TopicRecord } from "../../rules/topic-records.js";
import { type EntityAddress, splitEntityPath } from "./entities.js";

/** The topic a Service Bus name means: its exact name first, else one that differs only in case. */
export function findTopic(engine: QueueEngine, name: string): TopicRecord | undefined {
  const exact = engine.topics.get(name);
  if (exact !== undefined) return exact;
  const lower = name.toLowerCase();
  return engine.topics.list().find((topic) => topic.name.toLowerCase() === lower);
}

/** A subscription's address resolved: what it asks for, and the engine queue of the subscription. */
export interface SubscriptionEntity {
  readonly address: EntityAddress;
  /** The subscription's engine queue, `<topic>/subscriptions/<name>` as the engine names it. */
  readonly queue: QueueRecord;
}

/**
 * What a subscription's address names: `<topic>/Subscriptions/<sub>`, with `/$DeadLetterQueue`
 * and `/$management` after it as a queue's (each part in any case, as Azure matches them).
 * `"not-subscription"` for an address of another shape; `undefined` for one whose topic or
 * subscription does not exist (a subscription is never made by attaching to it).
 */
export function resolveSubscription(
  engine: QueueEngine,
  path: string,
): SubscriptionEntity | undefined | "not-subscription" {
  const { parts, deadLetter, management } = splitEntityPath(path);
  const named = parseSubscriptionPath(parts.join("/"));
  if (named === undefined) return "not-subscription";
  const found = findSubscription(engine, named.topic, named.subscription);
  if (found === undefined) return undefined;
  const { queue } = found;
  return { address: { queue: queue.name, deadLetter, management }, queue };
}

/** A subscription found by its topic's and its own name (each exactly, else in any case), with its engine queue. */
export interface FoundSubscription {
  readonly topic: TopicRecord;
  readonly record: SubscriptionRecord;
  readonly queue: QueueRecord;
}

/** The subscription `topic`/`name` means, or `undefined` when its topic, it or its queue does not exist. */
export function findSubscription(
  engine: QueueEngine,
  topic: string,
  name: string,
): FoundSubscription | undefined {
  const found = findTopic(engine, topic);
  if (found === undefined) return undefined;
  const lower = name.toLowerCase();
  const subscriptions = engine.topics.withSubscriptions(found.name).subscriptions;
  const record =
    subscriptions.find((one) => one.name === name) ??
    subscriptions.find((one) => one.name.toLowerCase() === lower);
  if (record === undefined) return undefined;
  const queue = engine.getQueueRecord(subscriptionPath(found.name, record.name));
  return queue === undefined ? undefined : { topic: found, record, queue };
}
