import { sendNamingSessions } from "../../core/batch.js";
import { type BatchEntryResult, QueueError } from "../../core/errors.js";
import { Delivery } from "../../core/message.js";
import type { OutgoingMessage } from "../../core/provider.js";
import { ReceiptHandle } from "../../core/receipt-handle.js";
import type { PgPool } from "../../postgres/pg-pool.js";
import { newMessageId } from "../../rules/message-ids.js";
import { type LockedMessageRow, messageFields } from "./message-rows.js";
import { type PgQueryable, pgQuery } from "./pg-failures.js";
import { plainReceiveStatement, plainSendStatement } from "./plain-statements.js";
import type { PostgresQueue } from "./postgres-queues.js";
import { channelOf } from "./postgres-schema.js";
import { SettleBatcher } from "./settle-batcher.js";

/** A row of the plain receive: a locked message, or nulls when it locked none. */
type PlainReceiveRow = (LockedMessageRow | { [K in keyof LockedMessageRow]: null }) & {
  housekeeping: boolean;
};

/** Orders message rows by sequence number (delivery order). */
const bySequence = (a: LockedMessageRow, b: LockedMessageRow): number => Number(a.seq) - Number(b.seq);

const LOCK_TOKEN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const READY = 0;
const DELAYED = 1;

/** A held session: its id and the token of its lock. */
export interface SessionHold {
  readonly sessionId: string;
  readonly token: string;
}

/** The message and lock a receipt names. */
interface Lock {
  readonly seq: string;
  readonly lockToken: string;
}

/** A settlement of a lock, asked at `now`. */
interface Settlement extends Lock {
  readonly now: number;
}

/** An abandon: the lock to release, and how long the message then waits. */
interface Abandon extends Settlement {
  readonly queue: PostgresQueue;
  readonly delayMs: number;
}

/** The sequence number and lock token of a receipt; `InvalidReceipt` when it was not issued by this provider. */
function lockOf(receipt: ReceiptHandle): Lock {
  const dot = receipt.token.indexOf(".");
  const seq = receipt.token.slice(0, dot);
  const lockToken = receipt.token.slice(dot + 1);
  if (dot <= 0 || !/^\d{1,19}$/.test(seq) || !LOCK_TOKEN.test(lockToken))
    throw new QueueError("InvalidReceipt", "this receipt handle does not refer to a PostgreSQL message lock");
  return { seq, lockToken };
}

const invalidReceipt = (receipt: ReceiptHandle) =>
  new QueueError(
    "InvalidReceipt",
    `the lock of this receipt on ${receipt.queue} has ended or the message was settled already`,
  );

/** The statements on messages: send, receive and settle, each one round trip. */
export class PostgresMessages {
  readonly #pool: PgPool;
  readonly #schema: string;
  readonly #providerType: string;
  readonly #completes: SettleBatcher<Settlement>;
  readonly #abandons: SettleBatcher<Abandon>;
  readonly #channel: string;
  /** Queues (by id) whose last plain receive saw messages waiting to be moved: the next goes through `receive`. */
  readonly #housekeepingDue = new Set<number>();

  constructor(pool: PgPool, schema: string, providerType: string) {
    this.#channel = channelOf(schema);
    this.#pool = pool;
    this.#schema = `"${schema}"`;
    this.#providerType = providerType;
    this.#completes = new SettleBatcher((queueId, completes) => this.#completeAll(queueId, completes));
    this.#abandons = new SettleBatcher((queueId, abandons) => this.#abandonAll(queueId, abandons));
  }

  /**
   * Stores `messages` in one statement (on `db`: a connection in a transaction, else the pool);
   * repeats of a deduplication id answer the original's id.
   */
  async send(
    queue: PostgresQueue,
    messages: readonly OutgoingMessage[],
    now: number,
    db: PgQueryable = this.#pool,
  ): Promise<BatchEntryResult[]> {
    const { record } = queue;
    if (record.fifo && messages.some((message) => message.sessionId === undefined))
      return sendNamingSessions(record.name, messages, (withSession) =>
        this.send(queue, withSession, now, db),
      );
    const columns = {
      ids: [] as string[],
      sessions: [] as (string | null)[],
      bodies: [] as Buffer[],
      attributes: [] as (string | null)[],
      correlations: [] as (string | null)[],
      types: [] as (string | null)[],
      states: [] as number[],
      visible: [] as number[],
      expires: [] as (number | null)[],
      dedup: [] as (string | null)[],
    };
    for (const message of messages) {
      const delayMs = message.delayMs ?? record.defaultDelayMs;
      const timeToLiveMs = message.timeToLiveMs ?? record.defaultTimeToLiveMs;
      columns.ids.push(message.messageId ?? newMessageId());
      columns.sessions.push(message.sessionId ?? null);
      columns.bodies.push(Buffer.from(message.body.buffer, message.body.byteOffset, message.body.byteLength));
      columns.attributes.push(message.attributes === undefined ? null : JSON.stringify(message.attributes));
      columns.correlations.push(message.correlationId ?? null);
      columns.types.push(message.contentType ?? null);
      columns.states.push(delayMs > 0 ? DELAYED : READY);
      columns.visible.push(now + delayMs);
      columns.expires.push(timeToLiveMs === null ? null : now + timeToLiveMs);
      columns.dedup.push(record.deduplicationWindowMs > 0 ? (message.deduplicationId ?? null) : null);
    }
    const perColumn = [
      columns.ids,
      columns.sessions,
      columns.bodies,
      columns.attributes,
      columns.correlations,
      columns.types,
    ];
    const plain = !record.fifo && columns.dedup.every((id) => id === null);
    const sent = plain
      ? await pgQuery<{ o_seq: string; o_message_id: string }>(
          db,
          plainSendStatement(this.#schema),
          [
            queue.id,
            now,
            ...perColumn,
            columns.expires,
            columns.states,
            columns.visible,
            this.#channel,
            record.name,
          ],
          `sending to ${record.name}`,
          `${this.#schema}.plain_send`,
        )
      : await pgQuery<{ o_seq: string; o_message_id: string }>(
          db,
          `SELECT o_seq, o_message_id FROM ${this.#schema}.send($1, $2, $3, $4, $5, $6, $7::jsonb[], $8, $9, $10, $11, $12, $13, $14, $15, $16)`,
          [
            queue.id,
            now,
            record.deduplicationWindowMs,
            ...perColumn,
            columns.states,
            columns.visible,
            columns.expires,
            columns.dedup,
            record.fifo,
            this.#channel,
            record.name,
          ],
          `sending to ${record.name}`,
          `${this.#schema}.send`,
        );
    return sent.rows.map((row) => ({ ok: true, messageId: row.o_message_id }));
  }

  /**
   * One receive of up to `max` messages: of a standard queue, or of the free sessions of a FIFO
   * queue, locked until `now` + the lock duration; or of a held session (its lock's token).
   */
  async receive(queue: PostgresQueue, max: number, now: number, session?: SessionHold): Promise<Delivery[]> {
    const { record } = queue;
    const common = [
      queue.id,
      now,
      max,
      record.lockDurationMs,
      record.maxDeliveryCount,
      queue.deadLetterId,
      record.name,
      record.deadLetterOnExpiration,
    ];
    const s = this.#schema;
    if (!record.fifo && !this.#housekeepingDue.has(queue.id)) {
      const plain = await pgQuery<PlainReceiveRow>(
        this.#pool,
        plainReceiveStatement(s),
        common.slice(0, 6),
        `receiving from ${record.name}`,
        `${s}.plain_receive`,
      );
      const locked = plain.rows.filter(
        (row): row is LockedMessageRow & { housekeeping: boolean } => row.seq !== null,
      );
      const housekeeping = plain.rows[0]?.housekeeping === true;
      if (locked.length > 0 || !housekeeping) {
        if (housekeeping) this.#housekeepingDue.add(queue.id);
        return locked.sort(bySequence).map((row) => this.#delivery(record.name, row));
      }
    }
    this.#housekeepingDue.delete(queue.id);
    const received = record.fifo
      ? await pgQuery<LockedMessageRow>(
          this.#pool,
          `SELECT * FROM ${s}.receive_groups($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
          [...common, session?.sessionId ?? null, session?.token ?? null],
          `receiving from ${record.name}`,
          `${s}.receive_groups`,
        )
      : await pgQuery<LockedMessageRow>(
          this.#pool,
          `SELECT * FROM ${s}.receive($1, $2, $3, $4, $5, $6, $7, $8)`,
          common,
          `receiving from ${record.name}`,
          `${s}.receive`,
        );
    // One statement locks the batch; its rows come back in no set order.
    return received.rows.sort(bySequence).map((row) => this.#delivery(record.name, row));
  }

  /** Deletes the message of a receipt whose lock holds, in one statement with the others of this turn. */
  complete(queue: PostgresQueue, receipt: ReceiptHandle, now: number): Promise<void> {
    const { seq, lockToken } = lockOf(receipt);
    return this.#completes.settle(
      queue.id,
      { seq, lockToken, now },
      `completing a message of ${receipt.queue}`,
    );
  }

  /**
   * Releases the lock of a receipt: the message is ready again (waiting receives are woken), or
   * after `delayMs`; in one statement with the others of this turn.
   */
  abandon(queue: PostgresQueue, receipt: ReceiptHandle, delayMs: number, now: number): Promise<void> {
    const { seq, lockToken } = lockOf(receipt);
    return this.#abandons.settle(
      queue.id,
      { seq, lockToken, now, queue, delayMs },
      `abandoning a message of ${receipt.queue}`,
    );
  }

  /** Deletes the messages of `completes` whose locks hold; answers which did. */
  async #completeAll(queueId: number, completes: readonly Settlement[]): Promise<boolean[]> {
    // Locks are checked against the latest moment asked for: each was asked at or before it.
    const now = Math.max(...completes.map((one) => one.now));
    const deleted = await pgQuery<{ seq: string }>(
      this.#pool,
      `DELETE FROM ${this.#schema}.messages m USING unnest($2::bigint[], $3::uuid[]) AS u (seq, lock_token)
       WHERE m.seq = u.seq AND m.lock_token = u.lock_token AND m.queue_id = $1 AND m.state = 2 AND m.visible_at > $4
       RETURNING m.seq`,
      [queueId, completes.map((one) => one.seq), completes.map((one) => one.lockToken), now],
      "completing messages",
      `${this.#schema}.complete`,
    );
    const done = new Set(deleted.rows.map((row) => row.seq));
    return completes.map((one) => done.has(one.seq));
  }

  /** Releases the locks of `abandons` that hold, each through the `abandon` function; answers which did. */
  async #abandonAll(queueId: number, abandons: readonly Abandon[]): Promise<boolean[]> {
    const now = Math.max(...abandons.map((one) => one.now));
    const { queue } = abandons.at(-1)!;
    const released = await pgQuery<{ n: string; released: boolean }>(
      this.#pool,
      `SELECT u.n, ${this.#schema}.abandon(u.seq, $1, u.lock_token, $2, u.delay, $3, $4, $5, $6) AS released
       FROM unnest($7::bigint[], $8::uuid[], $9::bigint[]) WITH ORDINALITY AS u (seq, lock_token, delay, n)
       ORDER BY u.n`,
      [
        queueId,
        now,
        queue.record.maxDeliveryCount,
        queue.deadLetterId,
        queue.record.name,
        this.#channel,
        abandons.map((one) => one.seq),
        abandons.map((one) => one.lockToken),
        abandons.map((one) => one.delayMs),
      ],
      "abandoning messages",
      `${this.#schema}.abandon_all`,
    );
    const held = abandons.map(() => false);
    for (const row of released.rows) held[Number(row.n) - 1] = row.released;
    return held;
  }

  /** When the next delayed or locked message of `queue` comes due, if one does. */
  async nextDue(queue: PostgresQueue): Promise<number | undefined> {
    const found = await pgQuery<{ due: string | null }>(
      this.#pool,
      `SELECT min(visible_at) AS due FROM ${this.#schema}.messages WHERE queue_id = $1 AND state > 0`,
      [queue.id],
      `reading when ${queue.record.name} has messages next`,
      `${this.#schema}.next_due`,
    );
    const due = found.rows[0]?.due;
    return due === null || due === undefined ? undefined : Number(due);
  }

  /** Extends the lock of a receipt to the queue's lock duration from now; resolves the new end. */
  async renew(queue: PostgresQueue, receipt: ReceiptHandle, now: number): Promise<number> {
    const { seq, lockToken } = lockOf(receipt);
    const lockedUntil = now + queue.record.lockDurationMs;
    const s = this.#schema;
    // A message of an accepted session is locked by the session: only the session's lock is renewed.
    const bySession = `EXISTS (SELECT 1 FROM ${s}.groups g WHERE g.queue_id = m.queue_id
      AND g.session_id = m.session_id AND g.lock_kind = 'session')`;
    const done = await pgQuery<{ renewed: boolean }>(
      this.#pool,
      `UPDATE ${s}.messages m SET visible_at = CASE WHEN ${queue.record.fifo ? bySession : "false"} THEN visible_at ELSE $5 END
       WHERE seq = $1 AND queue_id = $2 AND lock_token = $3 AND state = 2 AND visible_at > $4
       RETURNING visible_at = $5 AS renewed`,
      [seq, queue.id, lockToken, now, lockedUntil],
      `renewing a lock on ${receipt.queue}`,
    );
    const row = done.rows[0];
    if (row === undefined) throw invalidReceipt(receipt);
    if (!row.renewed)
      throw new QueueError(
        "Unsupported",
        "messages of an accepted session are locked by the session: renew the session lock",
      );
    return lockedUntil;
  }

  /** Whether a lock token still holds its message's lock. */
  async #holds(queue: PostgresQueue, seq: string, lockToken: string, now: number): Promise<boolean> {
    const found = await pgQuery(
      this.#pool,
      `SELECT 1 FROM ${this.#schema}.messages
       WHERE seq = $1 AND queue_id = $2 AND lock_token = $3 AND state = 2 AND visible_at > $4`,
      [seq, queue.id, lockToken, now],
      `reading a lock on ${queue.record.name}`,
    );
    return (found.rowCount ?? 0) > 0;
  }

  /** Moves the message of a receipt to the queue's dead-letter queue with a reason. */
  async deadLetter(
    queue: PostgresQueue,
    receipt: ReceiptHandle,
    reason: string,
    description: string | undefined,
    now: number,
  ): Promise<void> {
    const { seq, lockToken } = lockOf(receipt);
    // A receipt that no longer holds its lock is invalid first, as on every provider.
    if (queue.deadLetterId === null && !(await this.#holds(queue, seq, lockToken, now)))
      throw invalidReceipt(receipt);
    if (queue.deadLetterId === null)
      throw new QueueError(
        "Unsupported",
        `queue ${queue.record.name} has no dead-letter queue; the message stays locked`,
      );
    const s = this.#schema;
    const done = await pgQuery(
      this.#pool,
      `SELECT ${s}.dead_letter(m.seq, $5, $6, $7, $8, false, $4) FROM (
         SELECT seq FROM ${s}.messages
         WHERE seq = $1 AND queue_id = $2 AND lock_token = $3 AND state = 2 AND visible_at > $4 FOR UPDATE) m`,
      [seq, queue.id, lockToken, now, queue.deadLetterId, queue.record.name, reason, description ?? null],
      `dead-lettering a message of ${receipt.queue}`,
    );
    if (done.rowCount === 0) throw invalidReceipt(receipt);
  }

  /** A locked row as a delivery whose receipt names its lock. */
  #delivery(queue: string, row: LockedMessageRow): Delivery {
    const lockedUntilMs = Number(row.visible_at);
    return new Delivery(
      messageFields(row),
      lockedUntilMs,
      new ReceiptHandle(this.#providerType, queue, `${row.seq}.${row.lock_token}`, lockedUntilMs),
    );
  }
}
