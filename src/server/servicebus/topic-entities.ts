import { parseSubscriptionPath, subscriptionPath } from "../../core/topics.js";
import type { QueueEngine } from "../../engine/queue-engine.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import type { TopicRecord } from "../../rules/topic-records.js";
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
  const topic = findTopic(engine, named.topic);
  if (topic === undefined) return undefined;
  const lower = named.subscription.toLowerCase();
  const subscriptions = engine.topics.withSubscriptions(topic.name).subscriptions;
  const subscription =
    subscriptions.find((one) => one.name === named.subscription) ??
    subscriptions.find((one) => one.name.toLowerCase() === lower);
  if (subscription === undefined) return undefined;
  const queue = engine.getQueueRecord(subscriptionPath(topic.name, subscription.name));
  if (queue === undefined) return undefined;
  return { address: { queue: queue.name, deadLetter, management }, queue };
}
