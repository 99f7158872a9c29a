import { randomUUID } from "node:crypto";
import type { Channel } from "amqplib";
import type { Clock } from "../../core/clock.js";
import type { BatchEntryResult } from "../../core/errors.js";
import { QueueError } from "../../core/errors.js";
import type { OperationContext, OutgoingMessage, TopicProvider } from "../../core/provider.js";
import {
  type SubscriptionFilter,
  type SubscriptionInfo,
  type SubscriptionOptions,
  type SubscriptionRule,
  subscriptionPath,
  type TopicInfo,
  type TopicOptions,
  type TopicStats,
} from "../../core/topics.js";
import {
  belongsToTopic,
  checkRule,
  subscriptionInfo,
  subscriptionRecord,
  topicInfo,
  topicRecord,
} from "../../rules/topic-records.js";
import type { Catalog } from "./catalog.js";
import type { RabbitConnection } from "./connection.js";
import type { BrokerNames } from "./names.js";
import type { PublishCounts } from "./publish-counts.js";
import type { RabbitMqAdmin } from "./rabbitmq-admin.js";
import { requireNativeRule } from "./routing-headers.js";
import type { SubscriptionEntry, TopicEntry } from "./topic-catalog.js";
import { bindDestination, bindRule, declareHeadersExchange, unbindRule } from "./topic-declarations.js";
import type { TopicPublishing } from "./topic-publishing.js";

/** What the topics need of their provider. */
export interface TopicDeps {
  readonly connection: RabbitConnection;
  readonly catalog: Catalog;
  readonly names: BrokerNames;
  readonly clock: Clock;
  readonly admin: RabbitMqAdmin;
  readonly maxMessageBytes: number;
  readonly publishing: TopicPublishing;
  readonly counts: PublishCounts;
}

/**
 * Topics on RabbitMQ: a topic is a headers exchange; a subscription is a queue of the provider (its
 * path's, received from and administered as any queue) reached through an exchange of its own,
 * bound to the topic's exchange once per rule (a rule is a binding, its correlation filter the
 * headers it matches), so the broker routes each message once to each subscription that a rule
 * of matches. The records (topics, subscriptions, rules, publish counts) are in the catalog stream,
 * since AMQP 0.9.1 cannot list exchanges or bindings.
 */
export class RabbitMqTopics implements TopicProvider {
  readonly #deps: TopicDeps;

  constructor(deps: TopicDeps) {
    this.#deps = deps;
  }

  async createTopic(name: string, options: TopicOptions = {}): Promise<TopicInfo> {
    const { catalog, names, clock, maxMessageBytes } = this.#deps;
    const record = topicRecord(name, options, maxMessageBytes, clock.now());
    await this.#channel(
      (channel) => declareHeadersExchange(channel, names.topic(name)),
      `create topic ${name}`,
    );
    const id = randomUUID();
    await catalog.appendTopic({ kind: "topic", id, record });
    await catalog.sync();
    if (catalog.topics.get(name)?.id !== id)
      throw new QueueError("QueueAlreadyExists", `topic ${name} already exists`);
    return topicInfo(record);
  }

  async deleteTopic(name: string): Promise<void> {
    const entry = await this.#topic(name);
    for (const subscription of entry.subscriptions.values()) await this.#drop(subscription);
    await this.#deps.catalog.appendTopic({ kind: "topic-delete", name });
    await this.#deps.catalog.sync();
    await this.#channel(
      async (channel) => void (await channel.deleteExchange(this.#deps.names.topic(name))),
      `delete topic ${name}`,
    );
  }

  async listTopics(prefix?: string): Promise<string[]> {
    await this.#deps.catalog.sync();
    return this.#deps.catalog.topics
      .all()
      .map((entry) => entry.record.name)
      .filter((name) => prefix === undefined || name.startsWith(prefix))
      .sort();
  }

  async getTopic(name: string): Promise<TopicInfo | null> {
    await this.#deps.catalog.sync();
    const entry = this.#deps.catalog.topics.get(name);
    return entry === undefined ? null : topicInfo(entry.record);
  }

  async getTopicStats(name: string): Promise<TopicStats> {
    await this.#deps.counts.flush();
    const entry = await this.#topic(name);
    return { subscriptions: entry.subscriptions.size, published: entry.published };
  }

  async createSubscription(
    topic: string,
    name: string,
    options: SubscriptionOptions = {},
  ): Promise<SubscriptionInfo> {
    const { catalog, names, clock, admin } = this.#deps;
    const { record, queue } = subscriptionRecord(topic, name, options, clock.now());
    for (const rule of record.rules) requireNativeRule(rule);
    if ((queue.defaultDelayMs ?? 0) > 0)
      throw new QueueError(
        "Unsupported",
        "a subscription with defaultDelayMs: the rabbitmq provider routes a topic's messages to its subscriptions when they are published",
      );
    const entry = await this.#topic(topic);
    if (entry.subscriptions.has(name))
      throw new QueueError("QueueAlreadyExists", `topic ${topic} already has a subscription ${name}`);
    const path = subscriptionPath(topic, name);
    const destination = record.forwardTo ?? path;
    if (record.forwardTo !== null && (await catalog.get(record.forwardTo)) === undefined)
      throw new QueueError(
        "QueueNotFound",
        `queue ${record.forwardTo}, where ${name} forwards to, does not exist`,
      );
    const info = await admin.makeQueue(path, queue);
    const fifo = (await catalog.get(destination))?.record.fifo ?? false;
    const exchange = names.subscription(path);
    await this.#channel(async (channel) => {
      await declareHeadersExchange(channel, exchange);
      // A FIFO destination is bound per session, as its sessions' queues are made.
      if (!fifo) await bindDestination(channel, exchange, names.queue(destination));
      for (const rule of record.rules) await bindRule(channel, names.topic(topic), exchange, rule);
    }, `subscribe ${path}`);
    await catalog.appendTopic({ kind: "subscribe", id: randomUUID(), record });
    await catalog.sync();
    return { ...info, topic, subscription: name, forwardTo: record.forwardTo };
  }

  async deleteSubscription(topic: string, name: string): Promise<void> {
    await this.#drop(await this.#subscription(topic, name));
  }

  async listSubscriptions(topic: string): Promise<string[]> {
    return [...(await this.#topic(topic)).subscriptions.keys()].sort();
  }

  async getSubscription(topic: string, name: string): Promise<SubscriptionInfo | null> {
    await this.#deps.catalog.sync();
    const entry = this.#deps.catalog.topics.get(topic)?.subscriptions.get(name);
    const queue = this.#deps.catalog.cached(subscriptionPath(topic, name));
    return entry === undefined || queue === undefined ? null : subscriptionInfo(entry.record, queue.record);
  }

  async createRule(
    topic: string,
    subscription: string,
    name: string,
    filter: SubscriptionFilter,
  ): Promise<void> {
    const rule = checkRule(name, filter);
    requireNativeRule(rule);
    const { catalog, names } = this.#deps;
    const entry = await this.#subscription(topic, subscription);
    if (entry.ruleIds.has(name))
      throw new QueueError("QueueAlreadyExists", `subscription ${subscription} already has a rule ${name}`);
    const id = randomUUID();
    await catalog.appendTopic({ kind: "rule", id, topic, subscription, rule });
    await catalog.sync();
    if (catalog.topics.get(topic)?.subscriptions.get(subscription)?.ruleIds.get(name) !== id)
      throw new QueueError("QueueAlreadyExists", `subscription ${subscription} already has a rule ${name}`);
    const exchange = names.subscription(subscriptionPath(topic, subscription));
    try {
      await this.#channel(
        (channel) => bindRule(channel, names.topic(topic), exchange, rule),
        `create rule ${name} of ${subscriptionPath(topic, subscription)}`,
      );
    } catch (error) {
      await catalog.appendTopic({ kind: "rule-delete", topic, subscription, name }).catch(() => undefined);
      throw error;
    }
  }

  async deleteRule(topic: string, subscription: string, name: string): Promise<void> {
    const { catalog, names } = this.#deps;
    const entry = await this.#subscription(topic, subscription);
    const rule = entry.record.rules.find((candidate) => candidate.name === name);
    if (rule === undefined)
      throw new QueueError("QueueNotFound", `subscription ${subscription} has no rule ${name}`);
    const exchange = names.subscription(subscriptionPath(topic, subscription));
    await this.#channel(
      (channel) => unbindRule(channel, names.topic(topic), exchange, rule),
      `delete rule ${name} of ${subscriptionPath(topic, subscription)}`,
    );
    await catalog.appendTopic({ kind: "rule-delete", topic, subscription, name });
    await catalog.sync();
  }

  async listRules(topic: string, subscription: string): Promise<SubscriptionRule[]> {
    const entry = await this.#subscription(topic, subscription);
    return [...entry.record.rules].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  publishMessages(
    topic: string,
    messages: readonly OutgoingMessage[],
    _context: OperationContext,
  ): Promise<BatchEntryResult[]> {
    return this.#deps.publishing.publish(topic, messages);
  }

  /**
   * Removes a subscription: its record first (publishers stop routing to it), then its exchange
   * (and with it every binding from the topic and to its queues), then its queue and its own
   * dead-letter queue with their messages.
   */
  async #drop(subscription: SubscriptionEntry): Promise<void> {
    const { catalog, names, admin } = this.#deps;
    const { topic, name } = subscription.record;
    const path = subscriptionPath(topic, name);
    await catalog.appendTopic({ kind: "unsubscribe", topic, name });
    await this.#channel(
      async (channel) => void (await channel.deleteExchange(names.subscription(path))),
      `delete subscription ${path}`,
    );
    this.#deps.publishing.forget(path);
    const queue = await catalog.get(path);
    if (queue === undefined) return;
    await admin.removeQueue(queue);
    const deadLetters = queue.record.deadLetterQueue;
    const deadEntry =
      deadLetters !== null && belongsToTopic(deadLetters) ? await catalog.get(deadLetters) : undefined;
    if (deadEntry !== undefined) await admin.removeQueue(deadEntry);
  }

  /** A topic after reading the catalog to its end; `QueueNotFound` when there is none. */
  async #topic(name: string): Promise<TopicEntry> {
    await this.#deps.catalog.sync();
    const entry = this.#deps.catalog.topics.get(name);
    if (entry === undefined) throw new QueueError("QueueNotFound", `topic ${name} does not exist`);
    return entry;
  }

  /** A subscription after reading the catalog to its end; `QueueNotFound` when it or its topic is missing. */
  async #subscription(topic: string, name: string): Promise<SubscriptionEntry> {
    const entry = (await this.#topic(topic)).subscriptions.get(name);
    if (entry === undefined)
      throw new QueueError("QueueNotFound", `topic ${topic} has no subscription ${name}`);
    return entry;
  }

  async #channel(work: (channel: Channel) => Promise<void>, what: string): Promise<void> {
    try {
      await this.#deps.connection.withChannel(work);
    } catch (error) {
      throw this.#deps.connection.failure(error, what);
    }
  }
}
