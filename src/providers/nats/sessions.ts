import { randomBytes } from "node:crypto";
import type { Clock } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import { Delivery } from "../../core/message.js";
import type { OperationContext, SessionProvider } from "../../core/provider.js";
import { ReceiptHandle } from "../../core/receipt-handle.js";
import { DEAD_LETTER_REASONS } from "../../rules/dead-letters.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import type { NatsLink } from "./connection.js";
import type { DelayMover } from "./delay-mover.js";
import { type MessageMeta, messageFields, readMeta } from "./message-mapping.js";
import type { QueueCatalog } from "./queue-catalog.js";
import type { SessionLocks, SessionRecord } from "./session-locks.js";
import {
  isStored,
  moveToDeadLetters,
  parseSessionToken,
  removeMessage,
  sessionToken,
} from "./session-messages.js";
import { Wakeup } from "./wakeups.js";
import { LOOK_AGAIN_MS } from "./work-queue.js";

/** What sessions need from the provider. */
export interface SessionDeps {
  readonly link: NatsLink;
  readonly prefix: string;
  readonly catalog: QueueCatalog;
  readonly locks: SessionLocks;
  readonly delays: DelayMover;
  readonly clock: Clock;
  readonly providerType: string;
  readonly sessionLockMs: number;
  /** Told when a session ends, so the provider forgets it. */
  readonly ended: (session: NatsSession) => void;
}

/** A message of a session received by its holder and not settled. */
interface HeldMessage {
  readonly meta: MessageMeta;
  readonly body: Uint8Array;
  readonly deliveryCount: number;
}

/**
 * One held session of a FIFO queue. Its messages live on the session's own subject of the
 * queue's stream, in the order they were sent; the holder reads them in stream order by direct
 * get (`next_by_subj`), passing over the ones it holds, so a message given back is the first
 * read again. The lock is the session's record in the sessions bucket, read and written back
 * with its revision by every operation: a holder whose lock was taken over learns it at once,
 * delivery counts survive a change of holder, and a message another client gave back by its
 * receipt is let go. Completing deletes the message from the stream; dead-lettering publishes the
 * dead letter (PubAck awaited) first.
 */
export class NatsSession implements SessionProvider {
  readonly sessionId: string;
  readonly owner = randomBytes(9).toString("base64url");
  readonly record: QueueRecord;
  readonly #deps: SessionDeps;
  readonly #subject: string;
  readonly #stream: string;
  readonly #held = new Map<number, HeldMessage>();
  /** Sequences settled since the record was last written: their delivery counts are dropped then. */
  readonly #gone = new Set<number>();
  #expiresAt = 0;
  #closed = false;
  /** Told when the last held message is settled (a session borrowed by a plain receive). */
  #onIdle: (() => void) | undefined;

  constructor(record: QueueRecord, sessionId: string, deps: SessionDeps) {
    this.record = record;
    this.sessionId = sessionId;
    this.#deps = deps;
    const names = deps.catalog.names(record.name);
    this.#subject = names.session(sessionId);
    this.#stream = names.stream;
  }

  /** Takes the lock; `SessionLocked` when another holds it. */
  async lock(): Promise<void> {
    const now = this.#deps.clock.now();
    const held = await this.#deps.locks.acquire(
      this.record.name,
      this.sessionId,
      this.owner,
      now,
      now + this.#deps.sessionLockMs,
    );
    this.#expiresAt = held.record.expiresAt;
  }

  get sessionExpiresAt(): Date {
    return new Date(this.#expiresAt);
  }

  /** Fails with `SessionLockLost` once closed or past the lock's known end. */
  #checkOpen(): void {
    if (this.#closed)
      throw new QueueError("SessionLockLost", `session ${this.sessionId} of ${this.record.name} is closed`);
    if (this.#deps.clock.now() >= this.#expiresAt) {
      this.#end();
      throw new QueueError(
        "SessionLockLost",
        `the lock on session ${this.sessionId} of ${this.record.name} has ended`,
      );
    }
  }

  /**
   * Reads and writes back the session's record (applying `change`): lets go of messages another
   * client gave back, drops the counts of settled ones, and fails with `SessionLockLost` when the
   * lock is gone (the session then ends).
   */
  async #sync(change: (record: SessionRecord) => SessionRecord = (record) => record): Promise<SessionRecord> {
    this.#checkOpen();
    const gone = [...this.#gone];
    let released: readonly number[] = [];
    try {
      const held = await this.#deps.locks.update(
        this.record.name,
        this.sessionId,
        this.owner,
        this.#deps.clock.now(),
        (current) => {
          released = current.released ?? [];
          const deliveries = { ...current.deliveries };
          const spent = { ...current.spent };
          for (const seq of gone) {
            delete deliveries[seq];
            delete spent[seq];
          }
          // What another client gave back is let go here, once: the record forgets it.
          return change({
            owner: current.owner,
            expiresAt: current.expiresAt,
            deliveries,
            released: [],
            spent,
          });
        },
      );
      for (const seq of gone) this.#gone.delete(seq);
      for (const seq of released) this.#held.delete(seq);
      this.#expiresAt = held.record.expiresAt;
      return held.record;
    } catch (error) {
      if (QueueError.is(error, "SessionLockLost")) this.#end();
      throw error;
    }
  }

  /** Whether the session has a message ready now (one not held). */
  async hasMessages(): Promise<boolean> {
    return (await this.#next(0)) !== null;
  }

  async #next(fromSequence: number): Promise<{ seq: number; meta: MessageMeta; body: Uint8Array } | null> {
    const { link, clock } = this.#deps;
    let seq = fromSequence;
    for (;;) {
      const stored = await link.call(`reading session ${this.sessionId}`, () =>
        link.jsm.direct.getMessage(this.#stream, { seq, next_by_subj: this.#subject }),
      );
      if (stored === null) return null;
      seq = stored.seq + 1;
      if (this.#held.has(stored.seq)) continue;
      return {
        seq: stored.seq,
        meta: readMeta(stored.header, `${this.record.name}:${stored.seq}`, clock.now()),
        body: stored.data,
      };
    }
  }

  async receiveMessages(maxMessages: number, waitMs: number, context: OperationContext): Promise<Delivery[]> {
    const { clock } = this.#deps;
    const deadline = clock.now() + waitMs;
    const wakeup = waitMs > 0 ? new Wakeup(this.#deps.link, this.#subject) : undefined;
    try {
      for (;;) {
        await this.#deps.delays.moveDue(this.record);
        const found = await this.#take(maxMessages);
        if (found.length > 0 || context.signal.aborted) return found;
        const left = Math.min(deadline, this.#expiresAt) - clock.now();
        if (left <= 0 || wakeup === undefined) return [];
        await wakeup.wait(Math.min(left, LOOK_AGAIN_MS), context.signal);
      }
    } finally {
      wakeup?.close();
    }
  }

  /** Takes up to `max` ready messages, counting their deliveries in the session's record. */
  async #take(max: number): Promise<Delivery[]> {
    const { clock, providerType } = this.#deps;
    const before = await this.#sync();
    const taken: { seq: number; meta: MessageMeta; body: Uint8Array }[] = [];
    let from = 0;
    while (taken.length < max) {
      const next = await this.#next(from);
      if (next === null) break;
      from = next.seq + 1;
      const now = clock.now();
      const count = (before.deliveries[next.seq] ?? 0) + 1;
      const expired = next.meta.expiresAt !== undefined && next.meta.expiresAt <= now;
      // Without a dead-letter queue nothing is dropped for its deliveries: it stays until settled.
      const exhausted =
        this.record.deadLetterQueue !== null &&
        this.record.maxDeliveryCount !== null &&
        count > this.record.maxDeliveryCount;
      if (expired || exhausted) {
        const keep = this.record.deadLetterQueue !== null && (!expired || this.record.deadLetterOnExpiration);
        const reason = expired ? DEAD_LETTER_REASONS.expired : DEAD_LETTER_REASONS.maxDeliveryCount;
        if (keep)
          await moveToDeadLetters(this.#deps, this.record, next.seq, next.meta, next.body, reason, undefined);
        else await removeMessage(this.#deps, this.record, next.seq);
        this.#gone.add(next.seq);
        continue;
      }
      taken.push(next);
    }
    if (taken.length === 0) return [];
    const counts = new Map<number, number>();
    const after = await this.#sync((record) => {
      const deliveries = { ...record.deliveries };
      for (const { seq } of taken) {
        deliveries[seq] = (deliveries[seq] ?? 0) + 1;
        counts.set(seq, deliveries[seq]);
      }
      return { ...record, deliveries };
    });
    const now = clock.now();
    return taken.map(({ seq, meta, body }) => {
      const count = counts.get(seq) ?? 1;
      this.#held.set(seq, { meta, body, deliveryCount: count });
      const receipt = new ReceiptHandle(
        providerType,
        this.record.name,
        sessionToken(this.owner, seq, count, this.sessionId),
        after.expiresAt,
      );
      return new Delivery(messageFields(meta, body, seq, count, now), after.expiresAt, receipt);
    });
  }

  /**
   * The held message a receipt names, after the record was read: `InvalidReceipt` when this
   * session holds no such message (settled, or given back by another client).
   */
  async #message(receipt: ReceiptHandle): Promise<[number, HeldMessage]> {
    const token = parseSessionToken(receipt.token);
    const seq = token?.owner === this.owner ? token.seq : undefined;
    await this.#sync();
    const held = seq === undefined ? undefined : this.#held.get(seq);
    if (seq === undefined || held === undefined || held.deliveryCount !== token?.count) {
      this.#idleCheck();
      throw new QueueError(
        "InvalidReceipt",
        `this receipt names no message held in session ${this.sessionId}`,
      );
    }
    // Settled by another client (by the receipt written down), or purged: held no more.
    if (!(await isStored(this.#deps, this.record, seq))) {
      this.#held.delete(seq);
      this.#idleCheck();
      throw new QueueError("InvalidReceipt", `this message of ${this.record.name} is no longer stored`);
    }
    return [seq, held];
  }

  /** Fails as a settle of `receipt` would (`InvalidReceipt` when this session holds no such message). */
  async checkHeld(receipt: ReceiptHandle): Promise<void> {
    await this.#message(receipt);
  }

  async completeMessage(receipt: ReceiptHandle): Promise<void> {
    const [seq] = await this.#message(receipt);
    await this.#settle(seq, () => removeMessage(this.#deps, this.record, seq));
  }

  async abandonMessage(receipt: ReceiptHandle): Promise<void> {
    const [seq, held] = await this.#message(receipt);
    const max = this.record.maxDeliveryCount;
    if (max !== null && held.deliveryCount >= max && this.record.deadLetterQueue !== null)
      await this.#settle(seq, () =>
        moveToDeadLetters(
          this.#deps,
          this.record,
          seq,
          held.meta,
          held.body,
          DEAD_LETTER_REASONS.maxDeliveryCount,
          undefined,
        ),
      );
    else {
      // Marked given back, so that the receipt (written down elsewhere) holds no lock any more.
      await this.#sync((record) => ({ ...record, spent: { ...record.spent, [seq]: held.deliveryCount } }));
      this.#held.delete(seq);
      this.#idleCheck();
    }
  }

  async deadLetterMessage(
    receipt: ReceiptHandle,
    reason: string,
    description: string | undefined,
  ): Promise<void> {
    const [seq, held] = await this.#message(receipt);
    await this.#settle(seq, () =>
      moveToDeadLetters(this.#deps, this.record, seq, held.meta, held.body, reason, description),
    );
  }

  /** Runs a settle of `seq`; the message is no longer held either way (gone elsewhere: `InvalidReceipt`). */
  async #settle(seq: number, act: () => Promise<void>): Promise<void> {
    try {
      await act();
      this.#gone.add(seq);
    } catch (error) {
      // Gone elsewhere, it is held no more; refused (no dead-letter queue) or not reached, it still is.
      if (!QueueError.is(error, "InvalidReceipt")) throw error;
    }
    this.#held.delete(seq);
    this.#idleCheck();
  }

  #idleCheck(): void {
    if (this.#held.size === 0 && this.#onIdle !== undefined) this.#onIdle();
  }

  async renewSessionLock(): Promise<Date> {
    const expiresAt = this.#deps.clock.now() + this.#deps.sessionLockMs;
    await this.#sync((record) => ({ ...record, expiresAt }));
    return new Date(expiresAt);
  }

  async getSessionState(): Promise<Uint8Array | null> {
    await this.#sync();
    return this.#deps.locks.state(this.record.name, this.sessionId);
  }

  async setSessionState(state: Uint8Array | null): Promise<void> {
    await this.#sync();
    await this.#deps.locks.setState(this.record.name, this.sessionId, state);
  }

  async closeSession(): Promise<void> {
    if (this.#closed) return;
    if (this.#deps.clock.now() >= this.#expiresAt) {
      this.#end();
      return;
    }
    // Let go at once; lost to a takeover already, there is nothing to let go.
    await this.#sync((record) => ({ ...record, owner: null, expiresAt: 0 })).catch((error: unknown) => {
      if (!QueueError.is(error, "SessionLockLost")) throw error;
    });
    this.#end();
  }

  /** Marks the session ended (closed, or its lock gone) and tells the provider. */
  #end(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#held.clear();
    this.#deps.ended(this);
  }

  /** Calls `idle` once no message received through this session is held any more. */
  whenIdle(idle: () => void): void {
    this.#onIdle = idle;
    this.#idleCheck();
  }
}
