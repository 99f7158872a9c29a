import type { BatchEntryResult } from "../../core/errors.js";
import type { OperationContext, OutgoingMessage, TopicProvider } from "../../core/provider.js";
import type {
  SubscriptionFilter,
  SubscriptionInfo,
  SubscriptionOptions,
  SubscriptionRule,
  TopicInfo,
  TopicOptions,
  TopicStats,
} from "../../core/topics.js";
import { subscriptionPath } from "../../core/topics.js";
import type { QueueEngine, RunWrite } from "../../engine/queue-engine.js";
import { subscriptionInfo, topicInfo } from "../../rules/topic-records.js";

/** Topics straight on the engine: one store transaction per call, publishes committed with the sends. */
export class EngineTopicProvider implements TopicProvider {
  readonly #engine: QueueEngine;
  readonly #maxMessageBytes: number;
  readonly #write: RunWrite;

  /** `write` runs a publish (in a group commit where the provider has one). */
  constructor(engine: QueueEngine, maxMessageBytes: number, write: RunWrite) {
    this.#engine = engine;
    this.#maxMessageBytes = maxMessageBytes;
    this.#write = write;
  }

  async publishMessages(
    topic: string,
    messages: readonly OutgoingMessage[],
    _context: OperationContext,
  ): Promise<BatchEntryResult[]> {
    return this.#write(() => this.#engine.topics.publish(topic, messages, this.#maxMessageBytes));
  }

  async createTopic(name: string, options: TopicOptions = {}): Promise<TopicInfo> {
    return topicInfo(this.#engine.topics.create(name, options, this.#maxMessageBytes));
  }

  async deleteTopic(name: string): Promise<void> {
    this.#engine.topics.delete(name);
  }

  async listTopics(prefix?: string): Promise<string[]> {
    const names = this.#engine.topics.list().map((topic) => topic.name);
    return prefix === undefined ? names : names.filter((name) => name.startsWith(prefix));
  }

  async getTopic(name: string): Promise<TopicInfo | null> {
    const record = this.#engine.topics.get(name);
    return record === undefined ? null : topicInfo(record);
  }

  async getTopicStats(name: string): Promise<TopicStats> {
    const { topic, subscriptions } = this.#engine.topics.withSubscriptions(name);
    return { subscriptions: subscriptions.length, published: topic.published };
  }

  async createSubscription(
    topic: string,
    name: string,
    options: SubscriptionOptions = {},
  ): Promise<SubscriptionInfo> {
    const { record, queue } = this.#engine.topics.subscribe(topic, name, options);
    return subscriptionInfo(record, queue);
  }

  async deleteSubscription(topic: string, name: string): Promise<void> {
    this.#engine.topics.unsubscribe(topic, name);
  }

  async listSubscriptions(topic: string): Promise<string[]> {
    return this.#engine.topics
      .withSubscriptions(topic)
      .subscriptions.map((subscription) => subscription.name);
  }

  async getSubscription(topic: string, name: string): Promise<SubscriptionInfo | null> {
    const record =
      this.#engine.topics.get(topic) === undefined
        ? undefined
        : this.#engine.topics
            .withSubscriptions(topic)
            .subscriptions.find((subscription) => subscription.name === name);
    const queue = this.#engine.getQueueRecord(subscriptionPath(topic, name));
    return record === undefined || queue === undefined ? null : subscriptionInfo(record, queue);
  }

  async createRule(
    topic: string,
    subscription: string,
    name: string,
    filter: SubscriptionFilter,
  ): Promise<void> {
    this.#engine.topics.createRule(topic, subscription, name, filter);
  }

  async deleteRule(topic: string, subscription: string, name: string): Promise<void> {
    this.#engine.topics.deleteRule(topic, subscription, name);
  }

  async listRules(topic: string, subscription: string): Promise<SubscriptionRule[]> {
    return this.#engine.topics.listRules(topic, subscription);
  }
}
