import type { PeekedMessage, QueueAdmin, QueueInfo, QueueOptions, QueueStats } from "./admin.js";
import { QueueError } from "./errors.js";
import type { Invoker } from "./invoker.js";
import { validatePeek } from "./peeked-message.js";
import type { OperationContext, QueueProvider, TopicProvider } from "./provider.js";
import type { ClientAdmin } from "./queue-client.js";
import type {
  SubscriptionFilter,
  SubscriptionInfo,
  SubscriptionOptions,
  SubscriptionRule,
  TopicInfo,
  TopicOptions,
  TopicStats,
} from "./topics.js";
import { validateQueueName } from "./validation.js";

/**
 * The client's admin: every name checked before the provider sees it, transient failures
 * repeated, and topic calls `Unsupported` on a provider without topics.
 */
export class CheckedAdmin implements ClientAdmin {
  readonly #provider: QueueProvider;
  readonly #admin: QueueAdmin;
  readonly #invoker: Invoker;

  constructor(provider: QueueProvider, invoker: Invoker) {
    this.#provider = provider;
    this.#admin = provider.admin;
    this.#invoker = invoker;
  }

  createQueue(name: string, options?: QueueOptions): Promise<QueueInfo> {
    return this.#call([name], "createQueue", () => this.#admin.createQueue(name, options));
  }
  deleteQueue(name: string): Promise<void> {
    return this.#call([name], "deleteQueue", () => this.#admin.deleteQueue(name));
  }
  listQueues(prefix?: string): Promise<string[]> {
    return this.#invoker.run("listQueues", () => this.#admin.listQueues(prefix));
  }
  getQueue(name: string): Promise<QueueInfo | null> {
    return this.#call([name], "getQueue", () => this.#admin.getQueue(name));
  }
  getQueueStats(name: string): Promise<QueueStats> {
    return this.#call([name], "getQueueStats", () => this.#admin.getQueueStats(name));
  }
  purgeQueue(name: string): Promise<number> {
    return this.#call([name], "purgeQueue", () => this.#admin.purgeQueue(name));
  }
  deadLetterQueueOf(name: string): Promise<string> {
    return this.#call([name], "deadLetterQueueOf", () => this.#admin.deadLetterQueueOf(name));
  }
  redrive(deadLetterQueue: string, target?: string): Promise<number> {
    const names = target === undefined ? [deadLetterQueue] : [deadLetterQueue, target];
    return this.#call(names, "redrive", () => this.#admin.redrive(deadLetterQueue, target));
  }
  peekMessages(queue: string, max: number, fromSequence?: string): Promise<PeekedMessage[]> {
    try {
      validatePeek(max, fromSequence);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#call([queue], "peekMessages", () => this.#admin.peekMessages(queue, max, fromSequence));
  }

  createTopic(name: string, options?: TopicOptions): Promise<TopicInfo> {
    return this.#topic([name], "createTopic", (topics) => topics.createTopic(name, options));
  }
  deleteTopic(name: string): Promise<void> {
    return this.#topic([name], "deleteTopic", (topics) => topics.deleteTopic(name));
  }
  listTopics(prefix?: string): Promise<string[]> {
    return this.#topic([], "listTopics", (topics) => topics.listTopics(prefix));
  }
  getTopic(name: string): Promise<TopicInfo | null> {
    return this.#topic([name], "getTopic", (topics) => topics.getTopic(name));
  }
  getTopicStats(name: string): Promise<TopicStats> {
    return this.#topic([name], "getTopicStats", (topics) => topics.getTopicStats(name));
  }
  createSubscription(topic: string, name: string, options?: SubscriptionOptions): Promise<SubscriptionInfo> {
    return this.#topic(
      [topic, name],
      "createSubscription",
      (topics) => topics.createSubscription(topic, name, options),
      true,
    );
  }
  deleteSubscription(topic: string, name: string): Promise<void> {
    return this.#topic(
      [topic, name],
      "deleteSubscription",
      (topics) => topics.deleteSubscription(topic, name),
      true,
    );
  }
  listSubscriptions(topic: string): Promise<string[]> {
    return this.#topic([topic], "listSubscriptions", (topics) => topics.listSubscriptions(topic));
  }
  getSubscription(topic: string, name: string): Promise<SubscriptionInfo | null> {
    return this.#topic(
      [topic, name],
      "getSubscription",
      (topics) => topics.getSubscription(topic, name),
      true,
    );
  }
  createRule(topic: string, subscription: string, name: string, filter: SubscriptionFilter): Promise<void> {
    return this.#topic(
      [topic, subscription, name],
      "createRule",
      (topics) => topics.createRule(topic, subscription, name, filter),
      true,
    );
  }
  deleteRule(topic: string, subscription: string, name: string): Promise<void> {
    return this.#topic(
      [topic, subscription, name],
      "deleteRule",
      (topics) => topics.deleteRule(topic, subscription, name),
      true,
    );
  }
  listRules(topic: string, subscription: string): Promise<SubscriptionRule[]> {
    return this.#topic(
      [topic, subscription],
      "listRules",
      (topics) => topics.listRules(topic, subscription),
      true,
    );
  }

  /**
   * A topic call: `Unsupported` where the provider has no topics, else checked like the rest (a
   * subscription's name, the second of `names` where `subscription` says so, without '/').
   */
  #topic<T>(
    names: readonly string[],
    what: string,
    call: (topics: TopicProvider) => Promise<T>,
    subscription = false,
  ): Promise<T> {
    const topics = this.#provider.topics;
    if (topics === undefined || !this.#provider.capabilities.topics)
      return Promise.reject(
        new QueueError("Unsupported", `the ${this.#provider.providerType} provider has no topics`),
      );
    const name = names[1];
    if (subscription && name?.includes("/"))
      return Promise.reject(
        new QueueError("Validation", `subscription name ${JSON.stringify(name)} may not hold '/'`),
      );
    return this.#call(names, what, () => call(topics));
  }

  #call<T>(
    names: readonly string[],
    what: string,
    call: (context: OperationContext) => Promise<T>,
  ): Promise<T> {
    try {
      for (const name of names) validateQueueName(name);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.#invoker.run(what, call);
  }
}
