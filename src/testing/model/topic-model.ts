import { QueueError } from "../../core/errors.js";
import { type SubscriptionFilter, subscriptionPath, type TopicStats } from "../../core/topics.js";
import {
  type CompiledFilter,
  compileFilter,
  DEFAULT_RULE_NAME,
  MATCH_ALL,
} from "../../rules/filters/index.js";
import type { ModelOptions, ModelQueueOptions, ModelSend, QueueModel } from "./queue-model.js";

/**
 * The reference model of topics (docs: shared/spec/topics.md): topics, their subscriptions and
 * rules, and publishing. A subscription's messages are a queue of the {@link QueueModel} named by
 * its path, so everything a queue does it does there; this model only decides which queues a
 * publish puts a copy in. Filters are evaluated by the library's own evaluator (src/rules/filters),
 * which has tests of its own: the runs check routing, settling and counting around it, not it.
 */

/** A message as the model publishes it: what a send carries, and what filters look at. */
export interface ModelPublish extends ModelSend {
  attributes?: Record<string, string>;
  correlationId?: string;
}

/** A rule as a subscription is given it. */
export interface ModelRule {
  readonly name: string;
  readonly filter: SubscriptionFilter;
}

/** The options of a topic the model knows. */
export interface ModelTopicOptions {
  /** The time to live of a copy of a message published without one; `null`: the subscription's. */
  defaultTimeToLiveMs?: number | null;
}

/** The options of a subscription the model knows: its queue's, its rules, and where its copies go instead. */
export interface ModelSubscriptionOptions extends Omit<ModelQueueOptions, "fifo"> {
  /** Its messages carry a session id and are delivered in order per session (a FIFO queue's). */
  requiresSession?: boolean;
  /** `undefined`: one rule, `$Default`, matching every message. */
  rules?: readonly ModelRule[];
  forwardTo?: string;
}

/** What one entry of a publish did: the body published, or the code it was refused with. */
export type PublishEntry = { readonly body: string } | { readonly code: string };

interface ModelSubscription {
  readonly name: string;
  rules: { readonly name: string; readonly filter: CompiledFilter }[];
  readonly forwardTo: string | undefined;
}

interface ModelTopic {
  readonly defaultTimeToLiveMs: number | null;
  published: number;
  readonly subscriptions: Map<string, ModelSubscription>;
}

/** Topics, subscriptions and rules over a {@link QueueModel} that holds the subscriptions' messages. */
export class TopicModel {
  readonly #queues: QueueModel;
  readonly #options: ModelOptions;
  readonly #topics = new Map<string, ModelTopic>();

  /** Keeps subscriptions' messages in `queues`; `options` as the queues were given. */
  constructor(queues: QueueModel, options: ModelOptions = {}) {
    this.#queues = queues;
    this.#options = options;
  }

  /** The names of every topic, sorted. */
  topicNames(): string[] {
    return [...this.#topics.keys()].sort();
  }

  /** The names of a topic's subscriptions, sorted. */
  subscriptionNames(topic: string): string[] {
    return [...this.#topic(topic).subscriptions.keys()].sort();
  }

  /** The paths of a topic's subscriptions, sorted by name; none when the topic does not exist. */
  subscriptionPaths(topic: string): string[] {
    return this.#topics.has(topic)
      ? this.subscriptionNames(topic).map((name) => subscriptionPath(topic, name))
      : [];
  }

  /** A topic's subscriptions and what was published to it since it was made. */
  stats(topic: string): TopicStats {
    const { subscriptions, published } = this.#topic(topic);
    return { subscriptions: subscriptions.size, published };
  }

  /** The names of a subscription's rules, sorted. */
  ruleNames(topic: string, subscription: string): string[] {
    return this.#subscription(topic, subscription)
      .rules.map((rule) => rule.name)
      .sort();
  }

  /** Creates a topic; `QueueAlreadyExists` when one of that name exists (a queue of that name is no matter). */
  createTopic(name: string, options: ModelTopicOptions = {}): void {
    if (this.#topics.has(name)) throw new QueueError("QueueAlreadyExists", `topic ${name} already exists`);
    this.#topics.set(name, {
      defaultTimeToLiveMs: options.defaultTimeToLiveMs ?? null,
      published: 0,
      subscriptions: new Map(),
    });
  }

  /** Deletes a topic with its subscriptions and their messages. */
  deleteTopic(name: string): void {
    for (const subscription of this.subscriptionNames(name)) this.deleteSubscription(name, subscription);
    this.#topics.delete(name);
  }

  /** Creates a subscription and the queue its path names; its forwarding queue must exist. */
  createSubscription(topic: string, name: string, options: ModelSubscriptionOptions = {}): void {
    if (this.#options.subscriptionDeduplication === false && (options.deduplicationWindowMs ?? 0) > 0)
      throw new QueueError("Unsupported", "duplicates are detected on a topic, not on its subscriptions");
    const { subscriptions } = this.#topic(topic);
    if (subscriptions.has(name))
      throw new QueueError("QueueAlreadyExists", `topic ${topic} already has a subscription ${name}`);
    const {
      rules = [{ name: DEFAULT_RULE_NAME, filter: MATCH_ALL }],
      forwardTo,
      requiresSession,
      ...queue
    } = options;
    if (forwardTo !== undefined && !this.#queues.queueNames().includes(forwardTo))
      throw new QueueError("QueueNotFound", `queue ${forwardTo}, where ${name} forwards to, does not exist`);
    this.#queues.createSubscriptionQueue(subscriptionPath(topic, name), {
      ...queue,
      fifo: requiresSession ?? false,
    });
    subscriptions.set(name, { name, rules: rules.map(compiled), forwardTo });
  }

  /** Deletes a subscription, its queue and the dead-letter queue made for it. */
  deleteSubscription(topic: string, name: string): void {
    this.#subscription(topic, name);
    this.#queues.deleteSubscriptionQueue(subscriptionPath(topic, name));
    this.#topic(topic).subscriptions.delete(name);
  }

  /** Adds a rule; `QueueAlreadyExists` when the subscription has one of that name. */
  createRule(topic: string, subscription: string, rule: ModelRule): void {
    const found = this.#subscription(topic, subscription);
    if (found.rules.some((existing) => existing.name === rule.name))
      throw new QueueError(
        "QueueAlreadyExists",
        `subscription ${subscription} already has a rule ${rule.name}`,
      );
    found.rules.push(compiled(rule));
  }

  /** Removes a rule; with none left the subscription gets nothing. */
  deleteRule(topic: string, subscription: string, name: string): void {
    const found = this.#subscription(topic, subscription);
    if (!found.rules.some((rule) => rule.name === name))
      throw new QueueError("QueueNotFound", `subscription ${subscription} has no rule ${name}`);
    found.rules = found.rules.filter((rule) => rule.name !== name);
  }

  /**
   * Publishes messages as one call: each is copied to every subscription (or its forwarding queue)
   * a rule of which matches it, or refused whole with the code of the first copy that could not be
   * made; a refused entry does not stop the rest. `QueueNotFound` for a missing topic.
   */
  publish(topicName: string, messages: readonly ModelPublish[]): PublishEntry[] {
    const topic = this.#topic(topicName);
    return messages.map((message) => {
      const copy = {
        ...message,
        timeToLiveMs: message.timeToLiveMs ?? topic.defaultTimeToLiveMs ?? undefined,
      };
      const destinations = this.#destinations(topicName, topic, copy);
      // Every copy is checked before any is made: all copies or none.
      const refused = destinations
        .map((queue) => this.#queues.refusal(queue, copy))
        .find((error) => error !== undefined);
      if (refused !== undefined) return { code: refused.code };
      for (const queue of destinations) this.#queues.send(queue, copy);
      topic.published++;
      return { body: message.body };
    });
  }

  // The queues a message goes to, by subscription name: the semantics name no order among
  // refusals, and every provider checks subscriptions in that one.
  #destinations(name: string, topic: ModelTopic, message: ModelPublish): string[] {
    const filterable = {
      body: Buffer.from(message.body),
      attributes: message.attributes ?? {},
      correlationId: message.correlationId,
      sessionId: message.sessionId,
    };
    return this.subscriptionNames(name)
      .map((subscription) => topic.subscriptions.get(subscription)!)
      .filter((subscription) => subscription.rules.some((rule) => rule.filter.matches(filterable)))
      .map((subscription) => subscription.forwardTo ?? subscriptionPath(name, subscription.name));
  }

  #topic(name: string): ModelTopic {
    const topic = this.#topics.get(name);
    if (topic === undefined) throw new QueueError("QueueNotFound", `topic ${name} does not exist`);
    return topic;
  }

  #subscription(topic: string, name: string): ModelSubscription {
    const subscription = this.#topic(topic).subscriptions.get(name);
    if (subscription === undefined)
      throw new QueueError("QueueNotFound", `topic ${topic} has no subscription ${name}`);
    return subscription;
  }
}

/** Each filter compiled once: the runs give subscriptions the same few filter objects over and over. */
const compiledFilters = new WeakMap<SubscriptionFilter, CompiledFilter>();

/** A rule with its filter compiled by the library's evaluator. */
function compiled(rule: ModelRule): { name: string; filter: CompiledFilter } {
  let filter = compiledFilters.get(rule.filter);
  if (filter === undefined) {
    filter = compileFilter(rule.filter);
    compiledFilters.set(rule.filter, filter);
  }
  return { name: rule.name, filter };
}
