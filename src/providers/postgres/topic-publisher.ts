import { type BatchEntryResult, QueueError } from "../../core/errors.js";
import type { OutgoingMessage } from "../../core/provider.js";
import type { PgPool } from "../../postgres/pg-pool.js";
import { newMessageId } from "../../rules/message-ids.js";
import { type Copy, type CopyPlan, planCopies } from "./copy-plan.js";
import { type PgQueryable, pgQuery } from "./pg-failures.js";
import { inTransaction } from "./pg-transaction.js";
import type { PostgresMessages } from "./postgres-messages.js";
import { publishCheckStatement, publishStatement } from "./publish-statement.js";
import { readTopicSnapshot, type TopicSnapshot, topicNotFound } from "./topic-rows.js";

/** How many times a publish is planned again after finding the subscriptions changed before it gives up (transiently). */
const MAX_PLANS = 5;
/** The SQLSTATE of a copy to a queue row that is gone: a forwarding queue deleted since it was read. */
const FOREIGN_KEY_VIOLATION = "23503";

/** What a publisher needs of the provider. */
export interface PublisherContext {
  readonly pool: PgPool;
  /** The schema, quoted. */
  readonly schema: string;
  readonly channel: string;
  readonly messages: PostgresMessages;
  readonly createQueues: boolean;
  /** Makes a topic with default options; resolves whether it made it (false: it exists). */
  readonly createTopic: (name: string) => Promise<unknown>;
  /** Makes a queue a copy needs, when queues are made on demand (one that exists is fine). */
  readonly createQueue: (name: string) => Promise<void>;
  /** Wakes this process's receives waiting on a queue that got copies. */
  readonly signal: (queue: string) => void;
}

/**
 * Publishes to topics, filters evaluated here. Each topic's subscriptions are kept as last read
 * and used until a publish finds them stale: the publish statement stores nothing when the
 * topic's revision is not the one they were read at, and the publish is planned again from a
 * fresh read. So a publish is one round trip while the subscriptions stay as they are.
 */
export class TopicPublisher {
  readonly #context: PublisherContext;
  readonly #snapshots = new Map<string, TopicSnapshot>();

  constructor(context: PublisherContext) {
    this.#context = context;
  }

  /** Forgets what is known of `topic` (this process changed it). */
  forget(topic: string): void {
    this.#snapshots.delete(topic);
  }

  /** Publishes `messages` to `topic`: every copy of every message in one transaction. */
  async publish(
    topic: string,
    messages: readonly OutgoingMessage[],
    now: number,
  ): Promise<BatchEntryResult[]> {
    // Ids are given once, so a publish planned again keeps them.
    const identified = messages.map((message) =>
      message.messageId === undefined ? { ...message, messageId: newMessageId() } : message,
    );
    for (let attempt = 1; ; attempt++) {
      const cached = this.#snapshots.get(topic);
      const snapshot = cached ?? (await this.#read(topic));
      const plan = planCopies(snapshot, identified, now, this.#context.createQueues);
      const refusedForMissingQueue = plan.results.some(
        (result) => !result.ok && QueueError.is(result.error, "QueueNotFound"),
      );
      if (plan.missingQueues.length > 0 || (refusedForMissingQueue && cached !== undefined)) {
        // Read again before refusing (another process may have made the queue), or make the queues.
        if (cached === undefined)
          for (const queue of plan.missingQueues) await this.#context.createQueue(queue);
        this.#snapshots.delete(topic);
        continue;
      }
      if (await this.#store(snapshot, plan)) {
        for (const queue of new Set(plan.copies.map((copy) => copy.target.record.name)))
          this.#context.signal(queue);
        return plan.results;
      }
      this.#snapshots.delete(topic);
      if (attempt >= MAX_PLANS)
        throw new QueueError(
          "Provider",
          `publishing to topic ${topic}: its subscriptions changed ${MAX_PLANS} times while publishing`,
          { isTransient: true },
        );
    }
  }

  /** Reads a topic's subscriptions and keeps them; a missing topic is made where queues are, else `QueueNotFound`. */
  async #read(topic: string): Promise<TopicSnapshot> {
    const { pool, schema } = this.#context;
    let snapshot = await readTopicSnapshot(pool, schema, topic);
    if (snapshot === undefined && this.#context.createQueues) {
      await this.#context.createTopic(topic);
      snapshot = await readTopicSnapshot(pool, schema, topic);
    }
    if (snapshot === undefined) throw topicNotFound(topic);
    this.#snapshots.set(topic, snapshot);
    return snapshot;
  }

  /** Stores a plan's copies; resolves false, storing nothing, when the snapshot it came from is stale. */
  async #store(snapshot: TopicSnapshot, plan: CopyPlan): Promise<boolean> {
    try {
      return plan.deduplicated
        ? await this.#storeThroughSend(snapshot, plan)
        : await this.#storeAtOnce(snapshot, plan);
    } catch (error) {
      if (QueueError.is(error) && error.providerCode === FOREIGN_KEY_VIOLATION) return false;
      throw error;
    }
  }

  /** The common case: one statement. */
  async #storeAtOnce(snapshot: TopicSnapshot, plan: CopyPlan): Promise<boolean> {
    const { pool, schema, channel } = this.#context;
    const { messages, copies } = plan;
    const stored = await pgQuery<{ published: number }>(
      pool,
      publishStatement(schema),
      [
        snapshot.id,
        snapshot.revision,
        plan.published,
        plan.now,
        messages.map((message) => message.messageId),
        messages.map((message) => message.sessionId ?? null),
        messages.map((message) =>
          Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength),
        ),
        messages.map((message) =>
          message.attributes === undefined ? null : JSON.stringify(message.attributes),
        ),
        messages.map((message) => message.correlationId ?? null),
        messages.map((message) => message.contentType ?? null),
        copies.map((copy) => copy.target.id),
        copies.map((copy) => copy.message + 1),
        copies.map((copy) => copy.expiresAt),
        copies.map((copy) => copy.state),
        copies.map((copy) => copy.visibleAt),
        copies.map((copy) => copy.target.record.fifo),
        channel,
        [...new Set(copies.map((copy) => copy.target.record.name))],
      ],
      `publishing to topic ${snapshot.record.name}`,
      `${schema}.publish`,
    );
    return stored.rows[0]?.published === 1;
  }

  /** Copies to a queue with deduplication: the revision checked, then each queue's copies through `send`, in one transaction. */
  async #storeThroughSend(snapshot: TopicSnapshot, plan: CopyPlan): Promise<boolean> {
    const { pool, schema, messages } = this.#context;
    return inTransaction(pool, `publishing to topic ${snapshot.record.name}`, async (db: PgQueryable) => {
      const checked = await pgQuery(
        db,
        publishCheckStatement(schema),
        [snapshot.id, snapshot.revision, plan.published],
        `publishing to topic ${snapshot.record.name}`,
      );
      if (checked.rows.length === 0) return false;
      const byQueue = new Map<number, Copy[]>();
      for (const copy of plan.copies)
        byQueue.set(copy.target.id, [...(byQueue.get(copy.target.id) ?? []), copy]);
      for (const copies of byQueue.values()) {
        const { target } = copies[0]!;
        const outgoing = copies.map((copy) => {
          const message = plan.messages[copy.message]!;
          const timeToLiveMs = message.timeToLiveMs ?? snapshot.record.defaultTimeToLiveMs ?? undefined;
          return { ...message, timeToLiveMs };
        });
        await messages.send({ ...target, deadLetterId: null }, outgoing, plan.now, db);
      }
      return true;
    });
  }
}
