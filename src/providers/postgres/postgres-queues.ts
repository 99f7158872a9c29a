import type { PeekedMessage, QueueAdmin, QueueInfo, QueueOptions, QueueStats } from "../../core/admin.js";
import type { Clock } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import { peekedMessage } from "../../core/peeked-message.js";
import { validateQueueName } from "../../core/validation.js";
import type { PgPool } from "../../postgres/pg-pool.js";
import type { QueueDefaults } from "../../rules/queue-defaults.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import {
  deadLetterQueueOfRecord,
  deadLetterQueueRecord,
  queueInfo,
  queueRecord,
} from "../../rules/queue-records.js";
import {
  belongsToTopic,
  subscriptionQueueToCreate,
  subscriptionQueueToDelete,
} from "../../rules/topic-records.js";
import { type MessageRow, messageFields } from "./message-rows.js";
import { type PgQueryable, pgQuery } from "./pg-failures.js";

/**
 * Inserts a queue row and, when missing, its dead-letter queue's, in one statement; resolves the
 * queue's row id, or `undefined` when a queue of that name exists.
 */
export async function insertQueue(
  db: PgQueryable,
  schema: string,
  record: QueueRecord,
): Promise<number | undefined> {
  const deadLetter =
    record.deadLetterQueue === null
      ? null
      : deadLetterQueueRecord(record.deadLetterQueue, record, record.createdAt);
  const created = await pgQuery<{ id: number }>(
    db,
    `WITH q AS (INSERT INTO ${schema}.queues (name, settings) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING id),
       d AS (INSERT INTO ${schema}.queues (name, settings) SELECT $3, $4 WHERE $3::text IS NOT NULL AND EXISTS (SELECT 1 FROM q)
             ON CONFLICT (name) DO NOTHING RETURNING id)
     SELECT id FROM q`,
    [record.name, record, deadLetter?.name ?? null, deadLetter],
    `creating queue ${record.name}`,
  );
  return created.rows[0]?.id;
}

/** A queue as the provider knows it: its row id and its settings. */
export interface PostgresQueue {
  readonly id: number;
  readonly record: QueueRecord;
  /** The row id of its dead-letter queue, when it has one. */
  readonly deadLetterId: number | null;
}

/** How long a queue's settings read from the database are used before they are read again (another process may change them). */
const SETTINGS_FRESH_MS = 1_000;

/** Queue rows by name, read once a second at most; and the admin operations on them. */
export class PostgresQueues implements QueueAdmin {
  readonly #pool: PgPool;
  readonly #schema: string;
  readonly #clock: Clock;
  readonly #defaults: QueueDefaults;
  readonly #known = new Map<string, { queue: PostgresQueue; readAt: number }>();
  /** Makes or migrates the tables on first use. */
  readonly #open: () => Promise<void>;

  constructor(
    pool: PgPool,
    schema: string,
    clock: Clock,
    defaults: QueueDefaults,
    open: () => Promise<void>,
  ) {
    this.#open = open;
    this.#pool = pool;
    this.#schema = `"${schema}"`;
    this.#clock = clock;
    this.#defaults = defaults;
  }

  /** The queue named `name`, or `undefined` when there is none. */
  async find(name: string): Promise<PostgresQueue | undefined> {
    const known = this.#known.get(name);
    if (known !== undefined && Date.now() - known.readAt < SETTINGS_FRESH_MS) return known.queue;
    await this.#open();
    const s = this.#schema;
    const found = await pgQuery<{ id: number; settings: QueueRecord; dead_letter_id: number | null }>(
      this.#pool,
      `SELECT q.id, q.settings, d.id AS dead_letter_id FROM ${s}.queues q
       LEFT JOIN ${s}.queues d ON d.name = q.settings ->> 'deadLetterQueue' WHERE q.name = $1`,
      [name],
      `reading queue ${name}`,
    );
    const row = found.rows[0];
    if (row === undefined) {
      this.#known.delete(name);
      return undefined;
    }
    const queue: PostgresQueue = { id: row.id, record: row.settings, deadLetterId: row.dead_letter_id };
    this.#known.set(name, { queue, readAt: Date.now() });
    return queue;
  }

  /** The queue named `name`; `QueueNotFound` when there is none. */
  async require(name: string): Promise<PostgresQueue> {
    const queue = await this.find(name);
    if (queue === undefined) throw new QueueError("QueueNotFound", `queue ${name} does not exist`);
    return queue;
  }

  /** Forgets what is known of `name` (it failed as missing: it may have been deleted or made again). */
  forget(name: string): void {
    this.#known.delete(name);
  }

  async createQueue(name: string, options: QueueOptions = {}): Promise<QueueInfo> {
    const refused = subscriptionQueueToCreate(name);
    if (refused !== undefined) throw refused;
    const record = queueRecord(name, options, this.#defaults, this.#clock.now());
    await this.#open();
    if ((await insertQueue(this.#pool, this.#schema, record)) === undefined)
      throw new QueueError("QueueAlreadyExists", `queue ${name} already exists`);
    this.#known.delete(name);
    return queueInfo(record);
  }

  async deleteQueue(name: string): Promise<void> {
    validateQueueName(name);
    await this.#open();
    const s = this.#schema;
    if (belongsToTopic(name) && (await this.find(name)) !== undefined) throw subscriptionQueueToDelete(name);
    // A dead-letter queue another queue still names stays: its dead letters would have nowhere to go.
    const deleted = await pgQuery<{ kept_for: string | null; deleted: boolean; existed: boolean }>(
      this.#pool,
      `WITH source AS (SELECT min(name) AS name FROM ${s}.queues
                       WHERE settings ->> 'deadLetterQueue' = $1 AND name <> $1),
            gone AS (DELETE FROM ${s}.queues WHERE name = $1 AND (SELECT name FROM source) IS NULL RETURNING 1)
       SELECT (SELECT name FROM source) AS kept_for, EXISTS (SELECT 1 FROM gone) AS deleted,
              EXISTS (SELECT 1 FROM ${s}.queues WHERE name = $1) AS existed`,
      [name],
      `deleting queue ${name}`,
    );
    this.#known.delete(name);
    const outcome = deleted.rows[0]!;
    if (outcome.deleted) return;
    if (!outcome.existed) throw new QueueError("QueueNotFound", `queue ${name} does not exist`);
    throw new QueueError(
      "Validation",
      `queue ${name} is the dead-letter queue of ${outcome.kept_for}: delete ${outcome.kept_for} first, or give it another dead-letter queue`,
    );
  }

  async listQueues(prefix = ""): Promise<string[]> {
    await this.#open();
    const found = await pgQuery<{ name: string }>(
      this.#pool,
      `SELECT name FROM ${this.#schema}.queues WHERE starts_with(name, $1)`,
      [prefix],
      "listing queues",
    );
    // A subscription's queues are listed by listSubscriptions, as on the engine.
    return found.rows
      .map((row) => row.name)
      .filter((name) => !belongsToTopic(name))
      .sort();
  }

  async getQueue(name: string): Promise<QueueInfo | null> {
    validateQueueName(name);
    this.#known.delete(name);
    const queue = await this.find(name);
    return queue === undefined ? null : queueInfo(queue.record);
  }

  async getQueueStats(name: string): Promise<QueueStats> {
    const queue = await this.require(name);
    await this.#applyTime(queue);
    const counted = await pgQuery<{ active: string; in_flight: string; delayed: string; dead: string }>(
      this.#pool,
      `SELECT
         count(*) FILTER (WHERE queue_id = $1 AND (state = 0 OR visible_at <= $3)) AS active,
         count(*) FILTER (WHERE queue_id = $1 AND state = 2 AND visible_at > $3) AS in_flight,
         count(*) FILTER (WHERE queue_id = $1 AND state = 1 AND visible_at > $3) AS delayed,
         count(*) FILTER (WHERE queue_id = $2) AS dead
       FROM ${this.#schema}.messages WHERE queue_id = $1 OR queue_id = $2`,
      [queue.id, queue.deadLetterId ?? -1, this.#clock.now()],
      `counting queue ${name}`,
    );
    const row = counted.rows[0]!;
    return {
      active: Number(row.active),
      inFlight: Number(row.in_flight),
      delayed: Number(row.delayed),
      deadLettered: Number(row.dead),
    };
  }

  /**
   * Applies what time has done before counting, as a receive would: to the queue, to the queues
   * that dead-letter into it and to its dead-letter queue (expired messages dead-lettered or
   * dropped, ended locks with their deliveries used up dead-lettered), so the counts never show a
   * message where no receive would find it.
   */
  async #applyTime(queue: PostgresQueue): Promise<void> {
    const s = this.#schema;
    await pgQuery(
      this.#pool,
      `SELECT ${s}.expire(q.id, $2, d.id, q.name, coalesce((q.settings ->> 'deadLetterOnExpiration')::boolean, false)),
              ${s}.make_due_ready(q.id, $2, (q.settings ->> 'maxDeliveryCount')::int, d.id, q.name)
       FROM ${s}.queues q LEFT JOIN ${s}.queues d ON d.name = q.settings ->> 'deadLetterQueue'
       WHERE q.id = $1 OR q.id = $3 OR q.settings ->> 'deadLetterQueue' = $4`,
      [queue.id, this.#clock.now(), queue.deadLetterId ?? -1, queue.record.name],
      `applying what time did to queue ${queue.record.name}`,
    );
  }

  async purgeQueue(name: string): Promise<number> {
    const queue = await this.require(name);
    const purged = await pgQuery(
      this.#pool,
      `DELETE FROM ${this.#schema}.messages WHERE queue_id = $1`,
      [queue.id],
      `purging queue ${name}`,
    );
    return purged.rowCount ?? 0;
  }

  async deadLetterQueueOf(name: string): Promise<string> {
    validateQueueName(name);
    return deadLetterQueueOfRecord(name, (await this.find(name))?.record);
  }

  async redrive(deadLetterQueue: string, target?: string): Promise<number> {
    const source = await this.require(deadLetterQueue);
    if (target !== undefined) await this.require(target);
    let moved = 0;
    for (;;) {
      const step = await pgQuery<{ moved: number }>(
        this.#pool,
        `SELECT ${this.#schema}.redrive($1, $2, $3) AS moved`,
        [source.id, target ?? null, this.#clock.now()],
        `redriving ${deadLetterQueue}`,
      );
      const now = step.rows[0]?.moved ?? 0;
      moved += now;
      if (now === 0) return moved;
    }
  }

  /**
   * One plain SELECT in sequence order: no row is locked or changed, so a delay, lock or time to
   * live that ended is judged here against the clock receives use, as `getQueueStats` judges it,
   * and messages whose time to live ended are left out though no receive has removed them yet.
   * Ready messages and the others are read apart, each through its own index of the queue's rows
   * (an index of all of them in order would cost every send and receive).
   */
  async peekMessages(name: string, max: number, fromSequence?: string): Promise<PeekedMessage[]> {
    const queue = await this.require(name);
    const s = this.#schema;
    const columns = `seq, message_id, session_id, body, attributes, correlation_id, content_type, enqueued_at,
      delivery_count, first_delivered_at, delivered_at, state, visible_at`;
    // A message whose time to live ended is gone unless a receiver holds it (it may still complete it).
    const alive = "seq >= $2 AND (expires_at IS NULL OR expires_at > $3 OR (state = 2 AND visible_at > $3))";
    const peeked = await pgQuery<MessageRow & { peeked_state: PeekedMessage["state"] }>(
      this.#pool,
      `SELECT *, CASE WHEN visible_at <= $3 THEN 'active' WHEN state = 2 THEN 'inFlight'
           WHEN state = 1 THEN 'delayed' ELSE 'active' END AS peeked_state
       FROM ((SELECT ${columns} FROM ${s}.messages WHERE queue_id = $1 AND state = 0 AND ${alive} ORDER BY seq LIMIT $4)
         UNION ALL
         (SELECT ${columns} FROM ${s}.messages WHERE queue_id = $1 AND state > 0 AND ${alive} ORDER BY seq LIMIT $4)) m
       ORDER BY seq LIMIT $4`,
      [queue.id, fromSequence ?? "0", this.#clock.now(), max],
      `peeking at queue ${name}`,
    );
    return peeked.rows.map((row) => peekedMessage(messageFields(row), row.peeked_state));
  }
}
