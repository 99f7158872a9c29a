import type {
  SubscriptionFilter,
  SubscriptionOptions,
  SubscriptionRule,
  TopicOptions,
} from "../core/topics.js";
import type { QueueRecord } from "../rules/queue-records.js";
import type { SubscriptionRecord, TopicRecord } from "../rules/topic-records.js";
import type { EngineContext } from "./context.js";
import type { EngineMessage, SendOutcome } from "./delivery.js";
import {
  createRule,
  createSubscription,
  createTopic,
  deleteRule,
  deleteSubscription,
  deleteTopic,
  existingTopic,
  forwardSubscription,
  listRules,
  type PublishOptions,
  publish,
  updateTopic,
} from "./topics.js";

/**
 * Topics over the engine's store: a subscription's messages are the engine queue its path names,
 * so everything a queue does it does; what is here is the topics' own records and publishing.
 */
export class EngineTopics {
  readonly #context: EngineContext;

  constructor(context: EngineContext) {
    this.#context = context;
  }

  /** Creates a topic whose messages are at most `maxMessageBytes` (the provider's limit) unless its options say less. */
  create(name: string, options: TopicOptions, maxMessageBytes: number): TopicRecord {
    return createTopic(this.#context, name, options, maxMessageBytes);
  }

  /** Replaces a topic's time to live, largest message and properties; `QueueNotFound` when there is none. */
  update(
    name: string,
    settings: Pick<TopicRecord, "defaultTimeToLiveMs" | "maxMessageBytes" | "properties">,
  ): TopicRecord {
    return updateTopic(this.#context, name, settings);
  }

  /** Deletes a topic, its subscriptions and their messages. */
  delete(name: string): void {
    this.#notify(deleteTopic(this.#context, name));
  }

  /** A topic, or `undefined`. */
  get(name: string): TopicRecord | undefined {
    return this.#context.store.getTopic(name);
  }

  /** Every topic, sorted by name. */
  list(): TopicRecord[] {
    return this.#context.store.transaction(() => this.#context.store.listTopics());
  }

  /** A topic and its subscriptions; `QueueNotFound` when there is no such topic. */
  withSubscriptions(name: string): { topic: TopicRecord; subscriptions: SubscriptionRecord[] } {
    return this.#context.store.transaction(() => ({
      topic: existingTopic(this.#context, name),
      subscriptions: this.#context.store.listSubscriptions(name),
    }));
  }

  /** Creates a subscription and its queue. */
  subscribe(
    topic: string,
    name: string,
    options: SubscriptionOptions,
  ): { record: SubscriptionRecord; queue: QueueRecord } {
    return createSubscription(this.#context, topic, name, options);
  }

  /** Sends a subscription's copies to queue `forwardTo`, or to its own queue (`null`). */
  forward(topic: string, name: string, forwardTo: string | null): SubscriptionRecord {
    return forwardSubscription(this.#context, topic, name, forwardTo);
  }

  /** Deletes a subscription and its messages. */
  unsubscribe(topic: string, name: string): void {
    this.#notify(deleteSubscription(this.#context, topic, name));
  }

  /** Adds a rule to a subscription. */
  createRule(topic: string, subscription: string, name: string, filter: SubscriptionFilter): void {
    createRule(this.#context, topic, subscription, name, filter);
  }

  /** Removes a rule of a subscription. */
  deleteRule(topic: string, subscription: string, name: string): void {
    deleteRule(this.#context, topic, subscription, name);
  }

  /** A subscription's rules, sorted by name. */
  listRules(topic: string, subscription: string): SubscriptionRule[] {
    return listRules(this.#context, topic, subscription);
  }

  /** Publishes messages: each copied to every subscription that matches it, all copies or none. */
  publish(
    topic: string,
    messages: readonly EngineMessage[],
    maxMessageBytes: number,
    options?: PublishOptions,
  ): SendOutcome[] {
    return publish(this.#context, topic, messages, maxMessageBytes, options);
  }

  /** Wakes the receives that wait on queues just deleted: they end as on any deleted queue. */
  #notify(queues: readonly string[]): void {
    for (const queue of queues) this.#context.waiters.notify(queue);
  }
}
