import { QueueError, unlessNotFound } from "../core/errors.js";
import type { QueueClient } from "../core/queue-client.js";
import { subscriptionPath } from "../core/topics.js";
import type { MetricFamily } from "../metrics/prometheus-text.js";
import { queueFamilies, readQueueCounts } from "../metrics/queue-gauges.js";
import type { Deliveries } from "../receiving/index.js";
import {
  type DeliveryView,
  deliveryView,
  type MessageView,
  messageView,
  type QueueSummary,
  type TopicSummary,
} from "./queue-views.js";

/** The most messages one page of a queue shows. */
export const PAGE_SIZE = 50;

/** Everything the page keeps up to date: the provider, each queue's counts and the receiver's failed items. */
export interface DashboardSnapshot {
  /** The provider's type only: never its URL, which may hold a secret. */
  readonly provider: string;
  readonly peek: boolean;
  /** The queues, each topic's subscriptions (by path) and their dead-letter queues among them. */
  readonly queues: readonly QueueSummary[];
  /** Empty where the provider has no topics. */
  readonly topics: readonly TopicSummary[];
  /** `null` without a receiving store. */
  readonly deliveries: readonly DeliveryView[] | null;
}

/** A page of a queue's messages, and the sequence number the next page starts at when there may be more. */
export interface MessagePage {
  readonly queue: string;
  readonly messages: readonly MessageView[];
  readonly next: string | null;
}

/** A dead-letter queue's page; `messages` is null where the provider cannot peek. */
export type DeadLetterPage = Omit<MessagePage, "messages"> & {
  readonly messages: readonly MessageView[] | null;
};

/** What the dashboard shows and changes, over one queue client and, when given, a receiver's store. */
export class DashboardApi {
  readonly #client: QueueClient;
  readonly #deliveries: Deliveries | undefined;

  /** Works on `client`'s queues, and on `deliveries` when a receiving store is open. */
  constructor(client: QueueClient, deliveries?: Deliveries) {
    this.#client = client;
    this.#deliveries = deliveries;
  }

  /** Every queue with its counts, and the failed deliveries and parked messages. */
  async snapshot(): Promise<DashboardSnapshot> {
    const [{ queues, topics }, deliveries] = await Promise.all([this.#queues(), this.#deliveries?.list()]);
    return {
      provider: this.#client.providerType,
      peek: this.#client.capabilities.peek,
      queues,
      topics,
      deliveries: deliveries?.map(deliveryView) ?? null,
    };
  }

  /** The queue gauges of `/metrics`: one count read per queue and subscription (the first ones by name), no dead-letter relations. */
  async metricFamilies(): Promise<MetricFamily[]> {
    const admin = this.#client.admin;
    const [queues, { subscriptions }] = await Promise.all([admin.listQueues(), this.#topics()]);
    const names = [...queues, ...subscriptions.map((subscription) => subscription.name)];
    return queueFamilies(await readQueueCounts(names, (name) => admin.getQueueStats(name)));
  }

  /** Up to {@link PAGE_SIZE} of a queue's messages from `from` on, by peek: `Unsupported` where the provider cannot. */
  async messages(queue: string, from?: string): Promise<MessagePage> {
    const peeked = await this.#client.admin.peekMessages(queue, PAGE_SIZE, from);
    const last = peeked.at(-1);
    return {
      queue,
      messages: peeked.map(messageView),
      next:
        peeked.length === PAGE_SIZE && last !== undefined ? String(BigInt(last.sequenceNumber) + 1n) : null,
    };
  }

  /**
   * The dead letters of `queue`, named by the queue or by its dead-letter queue: the page of its
   * dead-letter queue (`messages` null where the provider cannot peek, which a redrive does not
   * need), or `null` when it has none and is none.
   */
  async deadLetters(queue: string): Promise<DeadLetterPage | null> {
    const { queues } = await this.#queues();
    const named = queues.find((summary) => summary.name === queue);
    if (named === undefined) throw new QueueError("QueueNotFound", `there is no queue ${queue}`);
    const deadLetterQueue = named.deadLetterSources.length > 0 ? queue : named.deadLetterQueue;
    if (deadLetterQueue === null || !queues.some((summary) => summary.name === deadLetterQueue)) return null;
    try {
      return await this.messages(deadLetterQueue);
    } catch (error) {
      if (QueueError.is(error, "Unsupported")) return { queue: deadLetterQueue, messages: null, next: null };
      throw error;
    }
  }

  /** Sends a UTF-8 message; resolves its id. */
  async send(queue: string, body: string, sessionId?: string): Promise<string> {
    return this.#client.sendMessage(queue, sessionId === undefined ? { body } : { body, sessionId });
  }

  /** Removes every message of a queue; resolves how many went. */
  async purge(queue: string): Promise<number> {
    return this.#client.admin.purgeQueue(queue);
  }

  /** Moves a dead-letter queue's messages back to their source queue (or to `target`); resolves how many moved. */
  async redrive(deadLetterQueue: string, target?: string): Promise<number> {
    return this.#client.admin.redrive(deadLetterQueue, target);
  }

  /** Makes a failed delivery or parked message pending again. */
  async retry(id: string): Promise<void> {
    await this.#receiving().retry(id);
  }

  /** Sets a failed delivery or parked message aside. */
  async dismiss(id: string): Promise<void> {
    await this.#receiving().dismiss(id);
  }

  /** The receiver's items, or `Configuration` when the dashboard was started without a receiving store. */
  #receiving(): Deliveries {
    if (this.#deliveries === undefined)
      throw new QueueError(
        "Configuration",
        "no receiving store is open: start the dashboard with --receiving <sqlite path | postgres url>",
      );
    return this.#deliveries;
  }

  /**
   * Every queue that still exists by the time its counts are read, with its dead-letter relations:
   * the provider's queues, then each topic's subscriptions and their dead-letter queues.
   */
  async #queues(): Promise<{ queues: QueueSummary[]; topics: TopicSummary[] }> {
    const admin = this.#client.admin;
    const { topics, subscriptions } = await this.#topics();
    const names: { name: string; topic: string | null }[] = [
      ...(await admin.listQueues()).map((name) => ({ name, topic: null })),
      ...subscriptions,
    ];
    const read = await Promise.all(
      names.map(async ({ name, topic }) => {
        const found = await unlessNotFound(async () => {
          const [stats, deadLetterQueue] = await Promise.all([
            admin.getQueueStats(name),
            deadLetterQueueOrNull(this.#client, name),
          ]);
          return { name, ...stats, deadLetterQueue, topic };
        });
        if (found === undefined || topic === null || found.deadLetterQueue === null) return [found];
        // A subscription's dead-letter queue is not among the queues listed: it is shown with it.
        const deadLetters = found.deadLetterQueue;
        const dead = await unlessNotFound(async () => ({
          name: deadLetters,
          ...(await admin.getQueueStats(deadLetters)),
          deadLetterQueue: null,
          topic,
        }));
        return [found, dead];
      }),
    );
    const found = read.flat().filter((queue) => queue !== undefined);
    return {
      queues: found.map((queue) => ({
        ...queue,
        deadLetterSources: found
          .filter((source) => source.deadLetterQueue === queue.name)
          .map((source) => source.name),
      })),
      topics,
    };
  }

  /** Each topic with its counts, and its subscriptions' paths; none where the provider has no topics. */
  async #topics(): Promise<{ topics: TopicSummary[]; subscriptions: { name: string; topic: string }[] }> {
    const topics: TopicSummary[] = [];
    const subscriptions: { name: string; topic: string }[] = [];
    if (!this.#client.capabilities.topics) return { topics, subscriptions };
    const admin = this.#client.admin;
    for (const topic of await admin.listTopics()) {
      const read = await unlessNotFound(() =>
        Promise.all([admin.getTopicStats(topic), admin.listSubscriptions(topic)]),
      );
      if (read === undefined) continue;
      const [stats, names] = read;
      topics.push({ name: topic, ...stats });
      for (const name of names) subscriptions.push({ name: subscriptionPath(topic, name), topic });
    }
    return { topics, subscriptions };
  }
}

/** The queue's dead-letter queue, or `null` when it has none (`Unsupported`). */
async function deadLetterQueueOrNull(client: QueueClient, queue: string): Promise<string | null> {
  try {
    return await client.admin.deadLetterQueueOf(queue);
  } catch (error) {
    if (QueueError.is(error, "Unsupported")) return null;
    throw error;
  }
}
