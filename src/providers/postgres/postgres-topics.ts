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
import { subscriptionPath } from "../../core/topics.js";
import type { PgPool } from "../../postgres/pg-pool.js";
import type { QueueDefaults } from "../../rules/queue-defaults.js";
import { type QueueRecord, queueRecord } from "../../rules/queue-records.js";
import {
  belongsToTopic,
  checkRule,
  subscriptionInfo,
  subscriptionRecord,
  topicInfo,
  topicRecord,
} from "../../rules/topic-records.js";
import { type PgQueryable, pgQuery } from "./pg-failures.js";
import { inTransaction } from "./pg-transaction.js";
import { insertQueue, type PostgresQueues } from "./postgres-queues.js";
import type { TopicPublisher } from "./topic-publisher.js";
import {
  type SubscriptionRow,
  subscriptionOfRow,
  type TopicRow,
  topicNotFound,
  topicOfRow,
} from "./topic-rows.js";

/** What the topics need of the provider. */
export interface TopicsContext {
  readonly pool: PgPool;
  /** The schema, quoted. */
  readonly schema: string;
  readonly clock: Clock;
  readonly defaults: QueueDefaults;
  readonly maxMessageBytes: number;
  readonly queues: PostgresQueues;
  readonly publisher: TopicPublisher;
  /** Makes or migrates the tables on first use. */
  readonly open: () => Promise<void>;
}

/**
 * Topics, subscriptions and rules in their own tables; a subscription's messages are the queue
 * row its path names. Every change of subscriptions or rules locks the topic's row first and
 * moves its revision on, so publishes (which check the revision) see it at once.
 */
export class PostgresTopics implements TopicProvider {
  readonly #context: TopicsContext;

  constructor(context: TopicsContext) {
    this.#context = context;
  }

  async publishMessages(
    topic: string,
    messages: readonly OutgoingMessage[],
    _context: OperationContext,
  ): Promise<BatchEntryResult[]> {
    await this.#context.open();
    return this.#context.publisher.publish(topic, messages, this.#context.clock.now());
  }

  async createTopic(name: string, options: TopicOptions = {}): Promise<TopicInfo> {
    const record = topicRecord(name, options, this.#context.maxMessageBytes, this.#context.clock.now());
    if (
      !(await this.#insertTopic(
        record.name,
        record.defaultTimeToLiveMs,
        record.maxMessageBytes,
        record.createdAt,
      ))
    )
      throw new QueueError("QueueAlreadyExists", `topic ${name} already exists`);
    return topicInfo(record);
  }

  /** Makes a topic with default options unless one of that name exists; resolves whether it made it. */
  async createDefaultTopic(name: string): Promise<boolean> {
    const record = topicRecord(name, {}, this.#context.maxMessageBytes, this.#context.clock.now());
    return this.#insertTopic(
      record.name,
      record.defaultTimeToLiveMs,
      record.maxMessageBytes,
      record.createdAt,
    );
  }

  /** Inserts a topic row; resolves false when one of that name exists. */
  async #insertTopic(
    name: string,
    ttl: number | null,
    maxBytes: number,
    createdAt: number,
  ): Promise<boolean> {
    await this.#context.open();
    const inserted = await pgQuery(
      this.#context.pool,
      `INSERT INTO ${this.#context.schema}.topics (name, default_ttl, max_message_bytes, created_at)
       VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING RETURNING id`,
      [name, ttl, maxBytes, createdAt],
      `creating topic ${name}`,
    );
    return inserted.rows.length > 0;
  }

  async deleteTopic(name: string): Promise<void> {
    await this.#change(name, `deleting topic ${name}`, async (db, topicId) => {
      const s = this.#context.schema;
      const subscriptions = await pgQuery<{ queue_id: number }>(
        db,
        `DELETE FROM ${s}.subscriptions WHERE topic_id = $1 RETURNING queue_id`,
        [topicId],
        `deleting topic ${name}`,
      );
      await this.#dropQueues(
        db,
        subscriptions.rows.map((row) => row.queue_id),
      );
      await pgQuery(db, `DELETE FROM ${s}.topics WHERE id = $1`, [topicId], `deleting topic ${name}`);
    });
  }

  async listTopics(prefix = ""): Promise<string[]> {
    await this.#context.open();
    const found = await pgQuery<{ name: string }>(
      this.#context.pool,
      `SELECT name FROM ${this.#context.schema}.topics WHERE starts_with(name, $1)`,
      [prefix],
      "listing topics",
    );
    return found.rows.map((row) => row.name).sort();
  }

  async getTopic(name: string): Promise<TopicInfo | null> {
    const row = await this.#topicRow(name);
    return row === undefined ? null : topicInfo(topicOfRow(row));
  }

  async getTopicStats(name: string): Promise<TopicStats> {
    const row = await this.#topicRow(name);
    if (row === undefined) throw topicNotFound(name);
    return { subscriptions: Number(row.subscriptions), published: Number(row.published) };
  }

  async createSubscription(
    topic: string,
    name: string,
    options: SubscriptionOptions = {},
  ): Promise<SubscriptionInfo> {
    const now = this.#context.clock.now();
    const { record, queue: queueOptions } = subscriptionRecord(topic, name, options, now);
    const queue = queueRecord(subscriptionPath(topic, name), queueOptions, this.#context.defaults, now);
    await this.#change(topic, `creating subscription ${name} of topic ${topic}`, async (db, topicId) => {
      const s = this.#context.schema;
      if ((await this.#subscriptionRow(db, topicId, topic, name)) !== undefined)
        throw new QueueError("QueueAlreadyExists", `topic ${topic} already has a subscription ${name}`);
      if (record.forwardTo !== null) {
        const target = await pgQuery(
          db,
          `SELECT 1 FROM ${s}.queues WHERE name = $1`,
          [record.forwardTo],
          "reading a queue",
        );
        if (target.rows.length === 0)
          throw new QueueError(
            "QueueNotFound",
            `queue ${record.forwardTo}, where ${name} forwards to, does not exist`,
          );
      }
      const queueId = await insertQueue(db, s, queue);
      if (queueId === undefined)
        throw new QueueError("QueueAlreadyExists", `queue ${queue.name} already exists`);
      await pgQuery(
        db,
        `INSERT INTO ${s}.subscriptions (topic_id, name, queue_id, forward_to, rules, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [topicId, name, queueId, record.forwardTo, JSON.stringify(record.rules), now],
        `creating subscription ${name} of topic ${topic}`,
      );
    });
    this.#context.queues.forget(queue.name);
    return subscriptionInfo(record, queue);
  }

  async deleteSubscription(topic: string, name: string): Promise<void> {
    await this.#change(topic, `deleting subscription ${name} of topic ${topic}`, async (db, topicId) => {
      await this.#existingSubscription(db, topicId, topic, name);
      const deleted = await pgQuery<{ queue_id: number }>(
        db,
        `DELETE FROM ${this.#context.schema}.subscriptions WHERE topic_id = $1 AND name = $2 RETURNING queue_id`,
        [topicId, name],
        `deleting subscription ${name} of topic ${topic}`,
      );
      await this.#dropQueues(
        db,
        deleted.rows.map((row) => row.queue_id),
      );
    });
  }

  async listSubscriptions(topic: string): Promise<string[]> {
    await this.#context.open();
    const found = await pgQuery<{ name: string | null }>(
      this.#context.pool,
      `SELECT sub.name FROM ${this.#context.schema}.topics t
       LEFT JOIN ${this.#context.schema}.subscriptions sub ON sub.topic_id = t.id WHERE t.name = $1`,
      [topic],
      `listing the subscriptions of topic ${topic}`,
    );
    if (found.rows.length === 0) throw topicNotFound(topic);
    return found.rows.flatMap((row) => (row.name === null ? [] : [row.name])).sort();
  }

  async getSubscription(topic: string, name: string): Promise<SubscriptionInfo | null> {
    await this.#context.open();
    const s = this.#context.schema;
    const found = await pgQuery<SubscriptionRow & { settings: QueueRecord }>(
      this.#context.pool,
      `SELECT t.name AS topic, sub.name, sub.rules, sub.forward_to, sub.created_at, q.settings
       FROM ${s}.topics t JOIN ${s}.subscriptions sub ON sub.topic_id = t.id JOIN ${s}.queues q ON q.id = sub.queue_id
       WHERE t.name = $1 AND sub.name = $2`,
      [topic, name],
      `reading subscription ${name} of topic ${topic}`,
    );
    const row = found.rows[0];
    return row === undefined ? null : subscriptionInfo(subscriptionOfRow(row), row.settings);
  }

  async createRule(
    topic: string,
    subscription: string,
    name: string,
    filter: SubscriptionFilter,
  ): Promise<void> {
    const rule = checkRule(name, filter);
    await this.#changeRules(topic, subscription, `creating rule ${name}`, (rules) => {
      if (rules.some((existing) => existing.name === name))
        throw new QueueError("QueueAlreadyExists", `subscription ${subscription} already has a rule ${name}`);
      return [...rules, rule];
    });
  }

  async deleteRule(topic: string, subscription: string, name: string): Promise<void> {
    await this.#changeRules(topic, subscription, `deleting rule ${name}`, (rules) => {
      if (!rules.some((rule) => rule.name === name))
        throw new QueueError("QueueNotFound", `subscription ${subscription} has no rule ${name}`);
      return rules.filter((rule) => rule.name !== name);
    });
  }

  async listRules(topic: string, subscription: string): Promise<SubscriptionRule[]> {
    await this.#context.open();
    const s = this.#context.schema;
    const found = await pgQuery<{ rules: SubscriptionRule[] | null }>(
      this.#context.pool,
      `SELECT sub.rules FROM ${s}.topics t
       LEFT JOIN ${s}.subscriptions sub ON sub.topic_id = t.id AND sub.name = $2 WHERE t.name = $1`,
      [topic, subscription],
      `reading the rules of subscription ${subscription} of topic ${topic}`,
    );
    const row = found.rows[0];
    if (row === undefined) throw topicNotFound(topic);
    if (row.rules === null)
      throw new QueueError("QueueNotFound", `topic ${topic} has no subscription ${subscription}`);
    return [...row.rules].sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** A topic's row with its count of subscriptions, or `undefined`. */
  async #topicRow(name: string): Promise<(TopicRow & { subscriptions: string }) | undefined> {
    await this.#context.open();
    const s = this.#context.schema;
    const found = await pgQuery<TopicRow & { subscriptions: string }>(
      this.#context.pool,
      `SELECT t.*, (SELECT count(*) FROM ${s}.subscriptions sub WHERE sub.topic_id = t.id) AS subscriptions
       FROM ${s}.topics t WHERE t.name = $1`,
      [name],
      `reading topic ${name}`,
    );
    return found.rows[0];
  }

  /** A subscription's row, locked to the end of `db`'s transaction, or `undefined`. */
  async #subscriptionRow(
    db: PgQueryable,
    topicId: number,
    topic: string,
    name: string,
  ): Promise<SubscriptionRow | undefined> {
    const found = await pgQuery<SubscriptionRow>(
      db,
      `SELECT $3::text AS topic, name, rules, forward_to, created_at FROM ${this.#context.schema}.subscriptions
       WHERE topic_id = $1 AND name = $2 FOR UPDATE`,
      [topicId, name, topic],
      `reading subscription ${name} of topic ${topic}`,
    );
    return found.rows[0];
  }

  /** A subscription's row; `QueueNotFound` when the topic has none of that name. */
  async #existingSubscription(
    db: PgQueryable,
    topicId: number,
    topic: string,
    name: string,
  ): Promise<SubscriptionRow> {
    const row = await this.#subscriptionRow(db, topicId, topic, name);
    if (row === undefined)
      throw new QueueError("QueueNotFound", `topic ${topic} has no subscription ${name}`);
    return row;
  }

  /** Changes a subscription's rules in a transaction that moves the topic's revision on. */
  async #changeRules(
    topic: string,
    subscription: string,
    what: string,
    change: (rules: readonly SubscriptionRule[]) => SubscriptionRule[],
  ): Promise<void> {
    await this.#change(topic, `${what} of subscription ${subscription}`, async (db, topicId) => {
      const row = await this.#existingSubscription(db, topicId, topic, subscription);
      await pgQuery(
        db,
        `UPDATE ${this.#context.schema}.subscriptions SET rules = $3 WHERE topic_id = $1 AND name = $2`,
        [topicId, subscription, JSON.stringify(change(row.rules))],
        `${what} of subscription ${subscription}`,
      );
    });
  }

  /**
   * Runs `work` in a transaction that first locks the topic's row (`QueueNotFound` when there is
   * none) and moves its revision on: a publish planned before the change is refused by its
   * statement and planned again. The topic's row is always locked first, as a publish locks it.
   */
  async #change(
    topic: string,
    what: string,
    work: (db: PgQueryable, topicId: number) => Promise<void>,
  ): Promise<void> {
    await this.#context.open();
    await inTransaction(this.#context.pool, what, async (db) => {
      const locked = await pgQuery<{ id: number }>(
        db,
        `UPDATE ${this.#context.schema}.topics SET revision = revision + 1 WHERE name = $1 RETURNING id`,
        [topic],
        what,
      );
      const row = locked.rows[0];
      if (row === undefined) throw topicNotFound(topic);
      await work(db, row.id);
    });
    this.#context.publisher.forget(topic);
  }

  /** Deletes subscriptions' queues (their messages with them) and the dead-letter queues made for them. */
  async #dropQueues(db: PgQueryable, queueIds: readonly number[]): Promise<void> {
    const s = this.#context.schema;
    const dropped = await pgQuery<{ name: string; dead_letter: string | null }>(
      db,
      `DELETE FROM ${s}.queues WHERE id = ANY($1::int[]) RETURNING name, settings ->> 'deadLetterQueue' AS dead_letter`,
      [queueIds],
      "deleting the queues of subscriptions",
    );
    const deadLetters = dropped.rows.flatMap((row) =>
      row.dead_letter !== null && belongsToTopic(row.dead_letter) ? [row.dead_letter] : [],
    );
    await pgQuery(
      db,
      `DELETE FROM ${s}.queues WHERE name = ANY($1::text[])`,
      [deadLetters],
      "deleting dead-letter queues",
    );
    for (const name of [...dropped.rows.map((row) => row.name), ...deadLetters])
      this.#context.queues.forget(name);
  }
}
