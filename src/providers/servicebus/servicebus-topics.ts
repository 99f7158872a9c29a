import type { ServiceBusAdministrationClient } from "@azure/service-bus";
import { formatIsoDuration, parseIsoDuration } from "../../azure/iso-duration.js";
import { withOwnSignal } from "../../core/abort-watch.js";
import type { Clock } from "../../core/clock.js";
import { type BatchEntryResult, QueueError } from "../../core/errors.js";
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
import { validateCount, validateQueueName } from "../../core/validation.js";
import { fromSdkError, type Redact } from "./errors.js";
import type { Links } from "./links.js";
import { sendThroughLinks } from "./send-batches.js";
import { fromSdkRule, subscriptionOptions, toSdkFilter, toSubscriptionInfo } from "./topic-mapping.js";

/** What the topics work through: the management API, the provider's senders, and what the provider shares. */
export interface ServiceBusTopicsDeps {
  readonly admin: ServiceBusAdministrationClient;
  readonly links: Links;
  readonly clock: Clock;
  readonly redact: Redact;
  /** Aborted when the provider closes. */
  readonly signal: AbortSignal;
  readonly createQueues: boolean;
  /** The largest message the provider sends. */
  readonly maxMessageBytes: number;
}

/**
 * Native Service Bus topics, subscriptions and rules: administration through the management
 * (ATOM) API, publishing through a sender on the topic. A subscription's path is received from
 * and settled as a queue (Service Bus's address `<topic>/Subscriptions/<sub>` takes the path).
 * Service Bus counts no publishes: `getTopicStats().published` counts this provider's own
 * publishes since it started.
 */
export class ServiceBusTopics implements TopicProvider {
  readonly #deps: ServiceBusTopicsDeps;
  /** Messages this provider published, per topic. */
  readonly #published = new Map<string, number>();
  /** Topics made (or found) already, when publishing creates them. */
  readonly #ensured = new Set<string>();

  constructor(deps: ServiceBusTopicsDeps) {
    this.#deps = deps;
  }

  async createTopic(name: string, options: TopicOptions = {}): Promise<TopicInfo> {
    validateQueueName(name);
    const maxMessageBytes =
      options.maxMessageBytes === undefined
        ? this.#deps.maxMessageBytes
        : validateCount("maxMessageBytes", options.maxMessageBytes, 1, this.#deps.maxMessageBytes);
    const ttl = options.defaultTimeToLiveMs;
    const created = await this.#admin(`createTopic ${name}`, (admin, abortSignal) =>
      admin.createTopic(name, {
        ...(ttl === undefined || ttl === null ? {} : { defaultMessageTimeToLive: formatIsoDuration(ttl) }),
        abortSignal,
      }),
    );
    this.#published.set(name, 0);
    return {
      name: created.name,
      defaultTimeToLiveMs: parseIsoDuration(created.defaultMessageTimeToLive, { code: "Provider" }),
      maxMessageBytes,
      createdAt: new Date(this.#deps.clock.now()),
    };
  }

  async deleteTopic(name: string): Promise<void> {
    await this.#admin(`deleteTopic ${name}`, (admin, abortSignal) =>
      admin.deleteTopic(name, { abortSignal }),
    );
    this.#published.delete(name);
    this.#ensured.delete(name);
  }

  async listTopics(prefix = ""): Promise<string[]> {
    const names: string[] = [];
    await this.#admin("listTopics", async (admin, abortSignal) => {
      for await (const topic of admin.listTopics({ abortSignal })) names.push(topic.name);
    });
    return names.filter((name) => name.startsWith(prefix)).sort();
  }

  async getTopic(name: string): Promise<TopicInfo | null> {
    return this.#orNull(async () => {
      const [topic, runtime] = await this.#admin(`getTopic ${name}`, (admin, abortSignal) =>
        Promise.all([
          admin.getTopic(name, { abortSignal }),
          admin.getTopicRuntimeProperties(name, { abortSignal }),
        ]),
      );
      return {
        name: topic.name,
        defaultTimeToLiveMs: parseIsoDuration(topic.defaultMessageTimeToLive, { code: "Provider" }),
        maxMessageBytes: this.#deps.maxMessageBytes,
        createdAt: runtime.createdAt,
      };
    });
  }

  async getTopicStats(name: string): Promise<TopicStats> {
    const runtime = await this.#admin(`getTopicStats ${name}`, (admin, abortSignal) =>
      admin.getTopicRuntimeProperties(name, { abortSignal }),
    );
    return { subscriptions: runtime.subscriptionCount ?? 0, published: this.#published.get(name) ?? 0 };
  }

  async createSubscription(
    topic: string,
    name: string,
    options: SubscriptionOptions = {},
  ): Promise<SubscriptionInfo> {
    const settings = subscriptionOptions(options);
    const rest = (options.rules ?? [])
      .slice(1)
      .map((rule) => ({ ...rule, sdk: toSdkFilter(rule.name, rule.filter) }));
    const what = `createSubscription ${topic}/${name}`;
    const created = await this.#admin(what, (admin, abortSignal) =>
      admin.createSubscription(topic, name, { ...settings, abortSignal }),
    );
    await this.#admin(what, async (admin, abortSignal) => {
      // Service Bus gives every subscription a rule; `rules: []` asks for none.
      if (options.rules !== undefined && options.rules.length === 0)
        await admin.deleteRule(topic, name, "$Default", { abortSignal });
      for (const rule of rest) await admin.createRule(topic, name, rule.name, rule.sdk, { abortSignal });
    });
    return toSubscriptionInfo(created, new Date(this.#deps.clock.now()));
  }

  async deleteSubscription(topic: string, name: string): Promise<void> {
    await this.#admin(`deleteSubscription ${topic}/${name}`, (admin, abortSignal) =>
      admin.deleteSubscription(topic, name, { abortSignal }),
    );
  }

  async listSubscriptions(topic: string): Promise<string[]> {
    const names: string[] = [];
    await this.#admin(`listSubscriptions ${topic}`, async (admin, abortSignal) => {
      for await (const subscription of admin.listSubscriptions(topic, { abortSignal }))
        names.push(subscription.subscriptionName);
    });
    return names.sort();
  }

  async getSubscription(topic: string, name: string): Promise<SubscriptionInfo | null> {
    return this.#orNull(async () => {
      const [subscription, runtime] = await this.#admin(
        `getSubscription ${topic}/${name}`,
        (admin, abortSignal) =>
          Promise.all([
            admin.getSubscription(topic, name, { abortSignal }),
            admin.getSubscriptionRuntimeProperties(topic, name, { abortSignal }),
          ]),
      );
      return toSubscriptionInfo(subscription, runtime.createdAt);
    });
  }

  async createRule(
    topic: string,
    subscription: string,
    name: string,
    filter: SubscriptionFilter,
  ): Promise<void> {
    const sdk = toSdkFilter(name, filter);
    await this.#admin(`createRule ${topic}/${subscription}/${name}`, (admin, abortSignal) =>
      admin.createRule(topic, subscription, name, sdk, { abortSignal }),
    );
  }

  async deleteRule(topic: string, subscription: string, name: string): Promise<void> {
    await this.#admin(`deleteRule ${topic}/${subscription}/${name}`, (admin, abortSignal) =>
      admin.deleteRule(topic, subscription, name, { abortSignal }),
    );
  }

  async listRules(topic: string, subscription: string): Promise<SubscriptionRule[]> {
    const rules: SubscriptionRule[] = [];
    await this.#admin(`listRules ${topic}/${subscription}`, async (admin, abortSignal) => {
      for await (const rule of admin.listRules(topic, subscription, { abortSignal }))
        rules.push(fromSdkRule(rule));
    });
    return rules.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** Sends the messages to the topic's sender; Service Bus copies them to the subscriptions whose rules match. */
  async publishMessages(
    topic: string,
    messages: readonly OutgoingMessage[],
    context: OperationContext,
  ): Promise<BatchEntryResult[]> {
    await this.#ensure(topic);
    const { links, clock, redact } = this.#deps;
    const results = await sendThroughLinks(links, topic, messages, clock.now(), context.signal, (error) =>
      fromSdkError(error, `publishMessages to ${topic}`, redact),
    );
    const published = results.filter((result) => result.ok).length;
    this.#published.set(topic, (this.#published.get(topic) ?? 0) + published);
    return results;
  }

  /** With `createQueues`, makes a missing topic once, as a send makes a missing queue. */
  async #ensure(topic: string): Promise<void> {
    if (!this.#deps.createQueues || this.#ensured.has(topic)) return;
    if ((await this.getTopic(topic)) === null)
      await this.createTopic(topic).catch((error: unknown) => {
        if (!QueueError.is(error, "QueueAlreadyExists")) throw error;
      });
    this.#ensured.add(topic);
  }

  /** One management call with a signal of its own that the provider's closing aborts; failures as QueueErrors. */
  async #admin<T>(
    what: string,
    run: (admin: ServiceBusAdministrationClient, signal: AbortSignal) => Promise<T>,
  ): Promise<T> {
    try {
      return await withOwnSignal(this.#deps.signal, (signal) => run(this.#deps.admin, signal));
    } catch (error) {
      throw QueueError.is(error) ? error : fromSdkError(error, what, this.#deps.redact);
    }
  }

  /** What `get` resolves, or `null` where the entity does not exist. */
  async #orNull<T>(get: () => Promise<T>): Promise<T | null> {
    try {
      return await get();
    } catch (error) {
      if (QueueError.is(error, "QueueNotFound")) return null;
      throw error;
    }
  }
}
