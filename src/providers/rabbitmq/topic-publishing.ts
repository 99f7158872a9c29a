import type { Options } from "amqplib";
import type { Clock } from "../../core/clock.js";
import { type BatchEntryResult, QueueError } from "../../core/errors.js";
import type { OutgoingMessage } from "../../core/provider.js";
import { subscriptionPath } from "../../core/topics.js";
import { type CompiledFilter, compileFilter, filterableOf } from "../../rules/filters/index.js";
import { newMessageId } from "../../rules/message-ids.js";
import { deliveryRefusal, oversizedForTopic, type SubscriptionRecord } from "../../rules/topic-records.js";
import { resultsOrFailure } from "./batch-results.js";
import type { Catalog, CatalogEntry } from "./catalog.js";
import { isNotFound, type RabbitConnection } from "./connection.js";
import { ExchangePublisher } from "./exchange-publisher.js";
import { newMessageParts } from "./message-mapping.js";
import type { BrokerNames } from "./names.js";
import type { PublishCounts } from "./publish-counts.js";
import { routingHeaders } from "./routing-headers.js";
import type { TopicEntry } from "./topic-catalog.js";
import { bindDestination } from "./topic-declarations.js";

/** A message ready to publish to a topic's exchange. */
interface Prepared {
  readonly messageId: string;
  readonly content: Buffer;
  readonly options: Options.Publish;
}

/** What publishing needs of its provider. */
export interface PublishingDeps {
  readonly connection: RabbitConnection;
  readonly catalog: Catalog;
  readonly names: BrokerNames;
  readonly clock: Clock;
  readonly createQueues: boolean;
  /** Where what was published is counted. */
  readonly counts: PublishCounts;
  /** Makes a topic with default options (one made meanwhile by another is fine). */
  createTopic(name: string): Promise<unknown>;
  /** Makes a queue with default options (one made meanwhile by another is fine). */
  createQueue(name: string): Promise<unknown>;
  /** The broker queue of one session of `entry`, declared and noted in the catalog as sent to. */
  sessionQueue(entry: CatalogEntry, sessionId: string): Promise<string>;
}

/**
 * Publishes to topics: one confirmed publish per message to the topic's exchange, carrying the
 * headers its bindings match, so the broker makes the copies. Before it, the client checks each
 * message against the subscriptions as it last read them, with the shared filters: a message a
 * matching subscription cannot take (no session id for a session subscription, a forwarding
 * queue gone) is refused with no copy anywhere, and a session's queue is made and bound to each
 * matching FIFO destination before the session's first message goes.
 */
export class TopicPublishing {
  readonly #deps: PublishingDeps;
  readonly #publisher: ExchangePublisher;
  /** Compiled rules of each subscription record (a record is replaced when its rules change). */
  readonly #filters = new WeakMap<SubscriptionRecord, CompiledFilter[]>();
  /** Destination queues bound to their subscription's exchange by this client, by subscription path, destination and session. */
  readonly #bound = new Map<string, Promise<void>>();

  constructor(deps: PublishingDeps) {
    this.#deps = deps;
    this.#publisher = new ExchangePublisher(deps.connection);
    deps.connection.onLost(() => this.#bound.clear());
  }

  /** Forgets the session bindings made for a subscription (it was deleted). */
  forget(path: string): void {
    for (const key of this.#bound.keys()) if (key.startsWith(`${path}\n`)) this.#bound.delete(key);
  }

  /**
   * Publishes `messages` to `topic`: one result per message; rejects only when the topic is missing
   * or the broker fails every one. Messages are prepared in order (so sessions are noted in the
   * order their first messages come, the order accept-next offers them in), then published together.
   */
  async publish(topic: string, messages: readonly OutgoingMessage[]): Promise<BatchEntryResult[]> {
    const entry = await this.#topic(topic);
    const prepared: (Prepared | QueueError)[] = [];
    for (const message of messages)
      prepared.push(
        await this.#prepare(entry, message).catch((error: unknown) => this.#failure(entry, error)),
      );
    const results = await Promise.all(
      prepared.map(async (ready): Promise<BatchEntryResult> => {
        if (ready instanceof QueueError) return { ok: false, error: ready };
        try {
          await this.#publisher.publish(this.#deps.names.topic(topic), topic, ready.content, ready.options);
          return { ok: true, messageId: ready.messageId };
        } catch (error) {
          return { ok: false, error: this.#failure(entry, error) };
        }
      }),
    );
    const published = results.filter((result) => result.ok).length;
    if (published > 0) this.#deps.counts.add(topic, entry.id, published);
    return resultsOrFailure(results);
  }

  /**
   * Checks a message against the subscriptions it matches (as last read), makes and binds the
   * session queues it needs, and resolves its publish.
   */
  async #prepare(entry: TopicEntry, message: OutgoingMessage): Promise<Prepared> {
    const { record } = entry;
    const oversized = oversizedForTopic(record, message.body.byteLength);
    if (oversized !== undefined) throw oversized;
    if ((message.delayMs ?? 0) > 0)
      throw new QueueError(
        "Unsupported",
        `a delayed publish to topic ${record.name}: the rabbitmq provider routes a topic's messages to its subscriptions when they are published`,
      );
    const messageId = message.messageId ?? newMessageId();
    const filterable = filterableOf({ ...message, messageId });
    const matching = [...entry.subscriptions.values()]
      .map((subscription) => subscription.record)
      .filter((subscription) => this.#compiled(subscription).some((filter) => filter.matches(filterable)));
    const found = await Promise.all(matching.map((subscription) => this.#destination(subscription)));
    // Every target is checked before any session queue is made: a refused message leaves nothing.
    const targets = matching.map((subscription, index) => {
      const destination = found[index];
      const refusal = deliveryRefusal(subscription, destination?.record, message.sessionId, false);
      if (refusal !== undefined) throw refusal;
      // A missing destination is refused above: with createQueues false it is QueueNotFound.
      return { subscription, destination: destination as CatalogEntry };
    });
    await Promise.all(
      targets.map(({ subscription, destination }) =>
        this.#bind(subscription, destination, message.sessionId),
      ),
    );
    const timeToLiveMs = message.timeToLiveMs ?? record.defaultTimeToLiveMs;
    // Copies expire when received (their qr-expires header), not by the broker: a subscription
    // without a dead-letter queue on expiry must drop what another dead-letters.
    const parts = newMessageParts(message, messageId, this.#deps.clock.now(), timeToLiveMs, false);
    const headers = { ...parts.options.headers, ...routingHeaders(filterable) };
    return { messageId, content: parts.content, options: { ...parts.options, headers } };
  }

  #failure(entry: TopicEntry, error: unknown): QueueError {
    return this.#deps.connection.failure(error, `publish to topic ${entry.record.name}`);
  }

  /** The topic as last read (read again when not known); made where queues are made on demand, else `QueueNotFound`. */
  async #topic(name: string): Promise<TopicEntry> {
    const { catalog } = this.#deps;
    let entry = catalog.topics.get(name);
    if (entry === undefined) {
      await catalog.sync();
      entry = catalog.topics.get(name);
    }
    if (entry === undefined && this.#deps.createQueues) {
      await this.#deps.createTopic(name).catch((error: unknown) => {
        if (!QueueError.is(error, "QueueAlreadyExists")) throw error;
      });
      entry = catalog.topics.get(name);
    }
    if (entry === undefined) throw new QueueError("QueueNotFound", `topic ${name} does not exist`);
    return entry;
  }

  #compiled(subscription: SubscriptionRecord): CompiledFilter[] {
    let filters = this.#filters.get(subscription);
    if (filters === undefined) {
      filters = subscription.rules.map((rule) => compileFilter(rule.filter));
      this.#filters.set(subscription, filters);
    }
    return filters;
  }

  /**
   * The queue that takes a subscription's copies: its own, or the one it forwards to; a forwarding
   * queue that is gone is made again where queues are made on demand (else undefined).
   */
  async #destination(subscription: SubscriptionRecord): Promise<CatalogEntry | undefined> {
    const path = subscriptionPath(subscription.topic, subscription.name);
    const name = subscription.forwardTo ?? path;
    const { catalog, createQueues } = this.#deps;
    let entry = await catalog.known(name);
    if (entry === undefined && createQueues && subscription.forwardTo !== null) {
      await this.#deps.createQueue(name).catch((error: unknown) => {
        if (!QueueError.is(error, "QueueAlreadyExists")) throw error;
      });
      entry = await catalog.get(name);
    }
    return entry;
  }

  /**
   * Binds the broker queue that takes a subscription's copies to its exchange, once per client:
   * the destination's own (again, in case it was made again since the subscription was), or for a
   * FIFO destination the queue of the message's session, made first.
   */
  #bind(
    subscription: SubscriptionRecord,
    destination: CatalogEntry,
    sessionId: string | undefined,
  ): Promise<void> {
    const path = subscriptionPath(subscription.topic, subscription.name);
    const session = destination.record.fifo ? sessionId : undefined;
    const key = `${path}\n${destination.id}\n${session ?? ""}`;
    let bound = this.#bound.get(key);
    if (bound === undefined) {
      bound = (async () => {
        const { connection, names } = this.#deps;
        const queue =
          session === undefined
            ? names.queue(destination.record.name)
            : await this.#deps.sessionQueue(destination, session);
        try {
          await connection.withChannel((channel) =>
            bindDestination(channel, names.subscription(path), queue, session),
          );
        } catch (error) {
          if (!isNotFound(error)) throw error;
          throw new QueueError(
            "QueueNotFound",
            `queue ${destination.record.name}, where ${path} delivers, does not exist`,
            { cause: error },
          );
        }
      })();
      bound.catch(() => this.#bound.delete(key));
      this.#bound.set(key, bound);
    }
    return bound;
  }
}
