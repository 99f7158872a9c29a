import { randomUUID } from "node:crypto";
import type { Clock } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import type { ReceivedMessage } from "../../core/message.js";
import type { OperationContext, SessionProvider } from "../../core/provider.js";
import type { ReceiptHandle } from "../../core/receipt-handle.js";
import type { PgPool } from "../../postgres/pg-pool.js";
import { pgQuery } from "./pg-failures.js";
import type { PostgresMessages, SessionHold } from "./postgres-messages.js";
import type { PostgresQueue } from "./postgres-queues.js";
import { channelOf } from "./postgres-schema.js";

/** What a session needs of its provider. */
export interface SessionContext {
  readonly pool: PgPool;
  /** The quoted schema. */
  readonly schema: string;
  /** The schema as named. */
  readonly schemaName: string;
  readonly clock: Clock;
  readonly messages: PostgresMessages;
  readonly sessionLockDurationMs: number;
  /** A mark to wait from, taken before looking at `queue`. */
  mark(queue: string): number;
  /** Waits for `queue` to change after `mark` (a send, a lock or delay that ends), or for `deadline`. */
  wait(queue: PostgresQueue, mark: number, deadline: number, signal: AbortSignal): Promise<void>;
  /** Tells the clients of this database that `queue` may have messages (a session let go). */
  readonly signal: (queue: string) => void;
}

const lost = (queue: string, sessionId: string) =>
  new QueueError("SessionLockLost", `the lock on session ${sessionId} of ${queue} has ended or was released`);

/**
 * Locks a session of a FIFO queue: the one named (`SessionLocked` while another holds it), or the
 * next free one with messages, asked again until `deadline` (`NoSessionAvailable`).
 */
export async function acceptPostgresSession(
  context: SessionContext,
  queue: PostgresQueue,
  sessionId: string | undefined,
  deadline: number,
  operation: OperationContext,
): Promise<PostgresSession> {
  const { record } = queue;
  if (!record.fifo)
    throw new QueueError(
      "Unsupported",
      `queue ${record.name} has no sessions: create it with { requiresSession: true } (or a name ending in .fifo)`,
    );
  for (;;) {
    const mark = context.mark(record.name);
    const now = context.clock.now();
    const token = randomUUID();
    const lockedUntil = now + context.sessionLockDurationMs;
    const accepted = await pgQuery<{ session: string | null }>(
      context.pool,
      `SELECT ${context.schema}.accept_session($1, $2, $3, $4, $5) AS session`,
      [queue.id, now, lockedUntil, sessionId ?? null, token],
      `accepting a session of ${record.name}`,
    );
    const session = accepted.rows[0]?.session ?? null;
    if (session !== null)
      return new PostgresSession(context, queue, { sessionId: session, token }, lockedUntil);
    if (context.clock.now() >= deadline || operation.signal.aborted)
      throw new QueueError("NoSessionAvailable", `no session of ${record.name} was free in the time given`);
    await context.wait(queue, mark, deadline, operation.signal);
  }
}

/** One locked session of a FIFO queue, as the contract's {@link SessionProvider}. */
export class PostgresSession implements SessionProvider {
  readonly sessionId: string;
  readonly #context: SessionContext;
  readonly #queue: PostgresQueue;
  readonly #hold: SessionHold;
  #expiresAt: number;

  constructor(context: SessionContext, queue: PostgresQueue, hold: SessionHold, lockedUntil: number) {
    this.#context = context;
    this.#queue = queue;
    this.#hold = hold;
    this.sessionId = hold.sessionId;
    this.#expiresAt = lockedUntil;
  }

  get sessionExpiresAt(): Date {
    return new Date(this.#expiresAt);
  }

  async receiveMessages(
    maxMessages: number,
    waitMs: number,
    context: OperationContext,
  ): Promise<ReceivedMessage[]> {
    const { clock, messages } = this.#context;
    const deadline = clock.now() + waitMs;
    for (;;) {
      const mark = this.#context.mark(this.#queue.record.name);
      const received = await messages.receive(this.#queue, maxMessages, clock.now(), this.#hold);
      if (received.length > 0 || clock.now() >= deadline || context.signal.aborted) return received;
      await this.#context.wait(this.#queue, mark, deadline, context.signal);
    }
  }

  completeMessage(receipt: ReceiptHandle): Promise<void> {
    return this.#context.messages.complete(this.#queue, receipt, this.#context.clock.now());
  }

  async abandonMessage(receipt: ReceiptHandle): Promise<void> {
    await this.#context.messages.abandon(this.#queue, receipt, 0, this.#context.clock.now());
  }

  deadLetterMessage(receipt: ReceiptHandle, reason: string, description: string | undefined): Promise<void> {
    return this.#context.messages.deadLetter(
      this.#queue,
      receipt,
      reason,
      description,
      this.#context.clock.now(),
    );
  }

  /** Extends the session lock, and the locks of its messages in flight, from now. */
  async renewSessionLock(): Promise<Date> {
    const now = this.#context.clock.now();
    const lockedUntil = now + this.#context.sessionLockDurationMs;
    const s = this.#context.schema;
    const renewed = await pgQuery<{ renewed: string }>(
      this.#context.pool,
      `WITH g AS (
         UPDATE ${s}.groups SET locked_until = $4
         WHERE queue_id = $1 AND session_id = $2 AND lock_token = $3 AND locked_until > $5 RETURNING 1),
       m AS (
         UPDATE ${s}.messages SET visible_at = $4
         WHERE queue_id = $1 AND session_id = $2 AND state = 2 AND visible_at > $5 AND EXISTS (SELECT 1 FROM g) RETURNING 1)
       SELECT count(*) AS renewed FROM g`,
      [this.#queue.id, this.sessionId, this.#hold.token, lockedUntil, now],
      `renewing session ${this.sessionId} of ${this.#queue.record.name}`,
    );
    if (Number(renewed.rows[0]?.renewed ?? 0) === 0) throw lost(this.#queue.record.name, this.sessionId);
    this.#expiresAt = lockedUntil;
    return new Date(lockedUntil);
  }

  async getSessionState(): Promise<Uint8Array | null> {
    const found = await pgQuery<{ state: Buffer | null }>(
      this.#context.pool,
      `SELECT state FROM ${this.#context.schema}.groups
       WHERE queue_id = $1 AND session_id = $2 AND lock_token = $3 AND locked_until > $4`,
      [this.#queue.id, this.sessionId, this.#hold.token, this.#context.clock.now()],
      `reading the state of session ${this.sessionId}`,
    );
    const row = found.rows[0];
    if (row === undefined) throw lost(this.#queue.record.name, this.sessionId);
    return row.state;
  }

  async setSessionState(state: Uint8Array | null): Promise<void> {
    const stored = await pgQuery(
      this.#context.pool,
      `UPDATE ${this.#context.schema}.groups SET state = $5
       WHERE queue_id = $1 AND session_id = $2 AND lock_token = $3 AND locked_until > $4`,
      [
        this.#queue.id,
        this.sessionId,
        this.#hold.token,
        this.#context.clock.now(),
        state === null ? null : Buffer.from(state.buffer, state.byteOffset, state.byteLength),
      ],
      `storing the state of session ${this.sessionId}`,
    );
    if (stored.rowCount === 0) throw lost(this.#queue.record.name, this.sessionId);
  }

  /**
   * Lets the session go: its messages in flight are released as an abandon releases them (ready
   * at once, or dead-lettered when their deliveries are used up), and another receiver may take it.
   */
  async closeSession(): Promise<void> {
    const s = this.#context.schema;
    const { id, record, deadLetterId } = this.#queue;
    await pgQuery(
      this.#context.pool,
      `WITH g AS (
         UPDATE ${s}.groups SET lock_kind = NULL, lock_token = NULL, locked_until = 0
         WHERE queue_id = $1 AND session_id = $2 AND lock_token = $3 RETURNING 1)
       SELECT ${s}.abandon(m.seq, $1, m.lock_token, $4, 0, $5, $6, $7, $8)
       FROM ${s}.messages m
       WHERE m.queue_id = $1 AND m.session_id = $2 AND m.state = 2 AND m.visible_at > $4
         AND EXISTS (SELECT 1 FROM g)
       UNION ALL SELECT pg_notify($8, $7) IS NULL FROM g`,
      [
        id,
        this.sessionId,
        this.#hold.token,
        this.#context.clock.now(),
        record.maxDeliveryCount,
        deadLetterId,
        record.name,
        channelOf(this.#context.schemaName),
      ],
      `closing session ${this.sessionId} of ${record.name}`,
    );
    this.#context.signal(record.name);
  }
}
