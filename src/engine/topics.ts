import { BoundedCache } from "../core/bounded-cache.js";
import { QueueError } from "../core/errors.js";
import type {
  SubscriptionFilter,
  SubscriptionOptions,
  SubscriptionRule,
  TopicOptions,
} from "../core/topics.js";
import { subscriptionPath } from "../core/topics.js";
import { type CompiledFilter, compileFilter, filterableOf } from "../rules/filters/index.js";
import { newMessageId } from "../rules/message-ids.js";
import { type QueueRecord, queueRecord } from "../rules/queue-records.js";
import {
  belongsToTopic,
  checkRule,
  deliveryRefusal,
  oversizedForTopic,
  type SubscriptionRecord,
  subscriptionRecord,
  type TopicRecord,
  topicRecord,
} from "../rules/topic-records.js";
import { type EngineContext, storeNewQueue } from "./context.js";
import { type EngineMessage, type SendOutcome, send } from "./delivery.js";

/** Compiled filters by their JSON: a store that reads subscriptions afresh (SQLite) compiles each filter once. */
const compiled = new BoundedCache<string, CompiledFilter>(1_000);

/** Compiled filters by the filter object itself: a store that keeps its records (memory, journal) reads the same ones. */
const compiledByObject = new WeakMap<SubscriptionFilter, CompiledFilter>();

function compiledFilter(filter: SubscriptionFilter): CompiledFilter {
  const same = compiledByObject.get(filter);
  if (same !== undefined) return same;
  const made = compiledByText(filter);
  compiledByObject.set(filter, made);
  return made;
}

function compiledByText(filter: SubscriptionFilter): CompiledFilter {
  const key = JSON.stringify(filter);
  const found = compiled.get(key);
  if (found !== undefined) return found;
  const made = compileFilter(filter);
  compiled.set(key, made);
  return made;
}

/** A topic that exists; `QueueNotFound` otherwise. */
export function existingTopic(context: EngineContext, name: string): TopicRecord {
  const found = context.store.getTopic(name);
  if (found === undefined) throw new QueueError("QueueNotFound", `topic ${name} does not exist`);
  return found;
}

/** A subscription that exists; `QueueNotFound` naming what is missing otherwise. */
export function existingSubscription(
  context: EngineContext,
  topic: string,
  name: string,
): SubscriptionRecord {
  existingTopic(context, topic);
  const found = context.store.listSubscriptions(topic).find((subscription) => subscription.name === name);
  if (found === undefined)
    throw new QueueError("QueueNotFound", `topic ${topic} has no subscription ${name}`);
  return found;
}

/** Creates a topic; `QueueAlreadyExists` when one of that name exists. */
export function createTopic(
  context: EngineContext,
  name: string,
  options: TopicOptions,
  maxMessageBytes: number,
): TopicRecord {
  const record = topicRecord(name, options, maxMessageBytes, context.clock.now());
  return context.store.transaction(() => {
    if (context.store.getTopic(name) !== undefined)
      throw new QueueError("QueueAlreadyExists", `topic ${name} already exists`);
    context.store.putTopic(record);
    return record;
  });
}

/**
 * Replaces a topic's settings (time to live, largest message, properties); its name, creation
 * time and count of published messages are kept. `QueueNotFound` when there is no such topic.
 */
export function updateTopic(
  context: EngineContext,
  name: string,
  settings: Pick<TopicRecord, "defaultTimeToLiveMs" | "maxMessageBytes" | "properties">,
): TopicRecord {
  return context.store.transaction(() => {
    const existing = existingTopic(context, name);
    const { properties, ...rest } = settings;
    const updated: TopicRecord = {
      ...existing,
      ...rest,
      ...(properties === undefined ? {} : { properties }),
    };
    context.store.putTopic(updated);
    return updated;
  });
}

/** Deletes a topic, its subscriptions and their messages. */
export function deleteTopic(context: EngineContext, name: string): string[] {
  return context.store.transaction(() => {
    existingTopic(context, name);
    const deleted = context.store
      .listSubscriptions(name)
      .flatMap((subscription) => dropQueues(context, subscription));
    context.store.deleteTopic(name);
    return deleted;
  });
}

/**
 * Creates a subscription and the queue its path names (with its dead-letter queue);
 * `QueueAlreadyExists` when the topic has one of that name, `QueueNotFound` for a missing topic or
 * forwarding queue.
 */
export function createSubscription(
  context: EngineContext,
  topic: string,
  name: string,
  options: SubscriptionOptions,
): { record: SubscriptionRecord; queue: QueueRecord } {
  const now = context.clock.now();
  const { record, queue: queueOptions } = subscriptionRecord(topic, name, options, now);
  const queue = queueRecord(subscriptionPath(topic, name), queueOptions, context.defaults, now);
  return context.store.transaction(() => {
    existingTopic(context, topic);
    if (context.store.listSubscriptions(topic).some((subscription) => subscription.name === name))
      throw new QueueError("QueueAlreadyExists", `topic ${topic} already has a subscription ${name}`);
    if (record.forwardTo !== null && context.store.getQueue(record.forwardTo) === undefined)
      throw new QueueError(
        "QueueNotFound",
        `queue ${record.forwardTo}, where ${name} forwards to, does not exist`,
      );
    if (context.store.getQueue(queue.name) !== undefined)
      throw new QueueError("QueueAlreadyExists", `queue ${queue.name} already exists`);
    storeNewQueue(context, queue);
    context.store.putSubscription(record);
    return { record, queue };
  });
}

/**
 * Changes where a subscription's copies go: `forwardTo` a queue that exists, or `null` for its
 * own queue. `QueueNotFound` for a missing topic, subscription or queue.
 */
export function forwardSubscription(
  context: EngineContext,
  topic: string,
  name: string,
  forwardTo: string | null,
): SubscriptionRecord {
  return context.store.transaction(() => {
    const existing = existingSubscription(context, topic, name);
    if (forwardTo !== null && context.store.getQueue(forwardTo) === undefined)
      throw new QueueError("QueueNotFound", `queue ${forwardTo}, where ${name} forwards to, does not exist`);
    const updated = { ...existing, forwardTo };
    context.store.putSubscription(updated);
    return updated;
  });
}

/** Deletes a subscription and its messages; resolves the queues deleted with it. */
export function deleteSubscription(context: EngineContext, topic: string, name: string): string[] {
  return context.store.transaction(() => {
    const deleted = dropQueues(context, existingSubscription(context, topic, name));
    context.store.deleteSubscription(topic, name);
    return deleted;
  });
}

/** Removes a subscription's queue and the dead-letter queue made for it; returns their names. */
function dropQueues(context: EngineContext, subscription: SubscriptionRecord): string[] {
  const path = subscriptionPath(subscription.topic, subscription.name);
  const deadLetterQueue = context.store.getQueue(path)?.deadLetterQueue ?? null;
  const names = [
    path,
    ...(deadLetterQueue !== null && belongsToTopic(deadLetterQueue) ? [deadLetterQueue] : []),
  ];
  for (const queue of names) context.store.deleteQueue(queue);
  return names;
}

/** Adds a rule to a subscription; `QueueAlreadyExists` when it has one of that name. */
export function createRule(
  context: EngineContext,
  topic: string,
  subscription: string,
  name: string,
  filter: SubscriptionFilter,
): void {
  const rule = checkRule(name, filter);
  context.store.transaction(() => {
    const record = existingSubscription(context, topic, subscription);
    if (record.rules.some((existing) => existing.name === name))
      throw new QueueError("QueueAlreadyExists", `subscription ${subscription} already has a rule ${name}`);
    context.store.putSubscription({ ...record, rules: [...record.rules, rule] });
  });
}

/** Removes a rule; `QueueNotFound` when there is none of that name. */
export function deleteRule(context: EngineContext, topic: string, subscription: string, name: string): void {
  context.store.transaction(() => {
    const record = existingSubscription(context, topic, subscription);
    if (!record.rules.some((rule) => rule.name === name))
      throw new QueueError("QueueNotFound", `subscription ${subscription} has no rule ${name}`);
    context.store.putSubscription({ ...record, rules: record.rules.filter((rule) => rule.name !== name) });
  });
}

/** A subscription's rules, sorted by name. */
export function listRules(context: EngineContext, topic: string, subscription: string): SubscriptionRule[] {
  return context.store.transaction(() =>
    [...existingSubscription(context, topic, subscription).rules].sort((a, b) => (a.name < b.name ? -1 : 1)),
  );
}

/** How a publish takes a refused message. */
export interface PublishOptions {
  /** Refuse the whole publish, with no copy of any message, when one is refused (a protocol's batch is one). */
  readonly whole?: boolean;
}

/**
 * Publishes messages to a topic in one step: each is copied, with one message id, to every
 * subscription (or its forwarding queue) a rule of which matches it; a message a matching
 * subscription cannot take (no session id for a session subscription, too large) is refused
 * whole, so its copies are all made or none. A missing topic is made where queues are, else
 * `QueueNotFound`.
 */
export function publish(
  context: EngineContext,
  topicName: string,
  messages: readonly EngineMessage[],
  maxMessageBytes: number,
  options: PublishOptions = {},
): SendOutcome[] {
  const { store } = context;
  return store.transaction(() => {
    let topic = store.getTopic(topicName);
    if (topic === undefined) {
      if (!context.createQueues) throw new QueueError("QueueNotFound", `topic ${topicName} does not exist`);
      topic = createTopic(context, topicName, {}, maxMessageBytes);
    }
    const subscriptions = store.listSubscriptions(topicName).map((record) => ({
      record,
      filters: record.rules.map((rule) => compiledFilter(rule.filter)),
      queue: store.getQueue(record.forwardTo ?? subscriptionPath(record.topic, record.name)),
    }));
    // Copies are sent per destination, one call for all the copies a publish puts there.
    const copies = new Map<string, EngineMessage[]>();
    const outcomes = messages.map((message): SendOutcome => {
      const refused = oversizedForTopic(topic, message.body.byteLength);
      if (refused !== undefined) return { ok: false, error: refused };
      const copy: EngineMessage = {
        ...message,
        messageId: message.messageId ?? newMessageId(),
        timeToLiveMs: message.timeToLiveMs ?? topic.defaultTimeToLiveMs ?? undefined,
      };
      const filterable = filterableOf(copy);
      const targets = subscriptions.filter(({ filters }) =>
        filters.some((filter) => filter.matches(filterable)),
      );
      // Every copy is checked before any is made: a memory store does not roll back.
      for (const target of targets) {
        const error = deliveryRefusal(target.record, target.queue, copy.sessionId, context.createQueues);
        if (error !== undefined) return { ok: false, error };
      }
      for (const { record } of targets) {
        const destination = record.forwardTo ?? subscriptionPath(record.topic, record.name);
        copies.set(destination, [...(copies.get(destination) ?? []), copy]);
      }
      return { ok: true, messageId: copy.messageId as string, seq: 0, duplicate: false };
    });
    const refused = outcomes.find((outcome) => !outcome.ok);
    if (options.whole === true && refused !== undefined && !refused.ok) throw refused.error;
    for (const [destination, sent] of copies)
      for (const outcome of send(context, destination, sent)) if (!outcome.ok) throw outcome.error;
    const published = outcomes.filter((outcome) => outcome.ok).length;
    if (published > 0) store.putTopic({ ...topic, published: topic.published + published });
    return outcomes;
  });
}
