import { randomBytes } from "node:crypto";
import type { Clock } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import { Delivery } from "../../core/message.js";
import type { OperationContext, SessionProvider } from "../../core/provider.js";
import { ReceiptHandle } from "../../core/receipt-handle.js";
import { DEAD_LETTER_ATTRIBUTES, DEAD_LETTER_REASONS } from "../../rules/dead-letters.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import type { NatsLink } from "./connection.js";
import type { DelayMover } from "./delay-mover.js";
import { type MessageMeta, messageFields, readMeta } from "./message-mapping.js";
import { untoken } from "./names.js";
import type { QueueCatalog } from "./queue-catalog.js";
import type { HeldLock, SessionLocks } from "./session-locks.js";
import { transfer } from "./transfer.js";
import { Wakeup } from "./wakeups.js";
import { LOOK_AGAIN_MS } from "./work-queue.js";

/** The kind mark of a receipt token for a session message: `s<owner>|<stream sequence>`. */
export const SESSION_RECEIPT = "s";

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
 * read again. The lock is the session's record in the sessions bucket: every receive writes the
 * deliveries it made there with the revision it holds, so a holder whose lock was taken over
 * learns it at once, and delivery counts survive a change of holder. Completing deletes the
 * message from the stream; dead-lettering publishes the dead letter (PubAck awaited) first.
 */
export class NatsSession implements SessionProvider {
  readonly sessionId: string;
  readonly owner = randomBytes(9).toString("base64url");
  readonly record: QueueRecord;
  readonly #deps: SessionDeps;
  readonly #subject: string;
  readonly #stream: string;
  readonly #held = new Map<number, HeldMessage>();
  /** Sequences completed since the record was last written: their delivery counts are dropped then. */
  readonly #gone = new Set<number>();
  #lock: HeldLock | undefined;
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
    this.#lock = await this.#deps.locks.acquire(
      this.record.name,
      this.sessionId,
      this.owner,
      now,
      now + this.#deps.sessionLockMs,
    );
  }

  get sessionExpiresAt(): Date {
    return new Date(this.#lock?.record.expiresAt ?? 0);
  }

  /** The lock, checked: `SessionLockLost` once closed or ended. */
  #holding(): HeldLock {
    if (this.#closed || this.#lock === undefined)
      throw new QueueError("SessionLockLost", `session ${this.sessionId} of ${this.record.name} is closed`);
    if (this.#deps.clock.now() >= this.#lock.record.expiresAt) {
      this.#end();
      throw new QueueError(
        "SessionLockLost",
        `the lock on session ${this.sessionId} of ${this.record.name} has ended`,
      );
    }
    return this.#lock;
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
        this.#holding();
        await this.#deps.delays.moveDue(this.record);
        const found = await this.#take(maxMessages);
        if (found.length > 0 || context.signal.aborted) return found;
        const left = Math.min(deadline, this.#holding().record.expiresAt) - clock.now();
        if (left <= 0 || wakeup === undefined) return [];
        await wakeup.wait(Math.min(left, LOOK_AGAIN_MS), context.signal);
      }
    } finally {
      wakeup?.close();
    }
  }

  /** Takes up to `max` ready messages, counting their deliveries in the session's record. */
  async #take(max: number): Promise<Delivery[]> {
    const lock = this.#holding();
    const { clock, providerType } = this.#deps;
    const deliveries = { ...lock.record.deliveries };
    for (const seq of this.#gone) delete deliveries[seq];
    const taken: { seq: number; meta: MessageMeta; body: Uint8Array; count: number }[] = [];
    let from = 0;
    while (taken.length < max) {
      const next = await this.#next(from);
      if (next === null) break;
      from = next.seq + 1;
      const now = clock.now();
      const count = (deliveries[next.seq] ?? 0) + 1;
      const expired = next.meta.expiresAt !== undefined && next.meta.expiresAt <= now;
      const exhausted = this.record.maxDeliveryCount !== null && count > this.record.maxDeliveryCount;
      if (expired || exhausted) {
        const keep = this.record.deadLetterQueue !== null && (!expired || this.record.deadLetterOnExpiration);
        if (keep)
          await this.#moveToDeadLetters(
            next.seq,
            next.meta,
            next.body,
            expired ? DEAD_LETTER_REASONS.expired : DEAD_LETTER_REASONS.maxDeliveryCount,
            undefined,
          );
        else await this.#remove(next.seq);
        delete deliveries[next.seq];
        continue;
      }
      deliveries[next.seq] = count;
      taken.push({ ...next, count });
    }
    if (taken.length === 0 && this.#gone.size === 0) return [];
    await this.#deps.locks.write(this.record.name, this.sessionId, lock, { ...lock.record, deliveries });
    this.#gone.clear();
    const now = clock.now();
    const lockedUntil = lock.record.expiresAt;
    return taken.map(({ seq, meta, body, count }) => {
      this.#held.set(seq, { meta, body, deliveryCount: count });
      const receipt = new ReceiptHandle(
        providerType,
        this.record.name,
        `${SESSION_RECEIPT}${this.owner}|${seq}`,
        lockedUntil,
      );
      return new Delivery(messageFields(meta, body, seq, count, now), lockedUntil, receipt);
    });
  }

  /** The held message a receipt names; `InvalidReceipt` when this session holds no such message. */
  #message(receipt: ReceiptHandle): [number, HeldMessage] {
    this.#holding();
    const seq = sequenceOf(receipt, this.owner);
    const held = seq === undefined ? undefined : this.#held.get(seq);
    if (held === undefined)
      throw new QueueError(
        "InvalidReceipt",
        `this receipt names no message held in session ${this.sessionId}`,
      );
    return [seq!, held];
  }

  async completeMessage(receipt: ReceiptHandle): Promise<void> {
    const [seq] = this.#message(receipt);
    await this.#remove(seq);
    this.#settled(seq);
  }

  async abandonMessage(receipt: ReceiptHandle): Promise<void> {
    const [seq, held] = this.#message(receipt);
    const max = this.record.maxDeliveryCount;
    if (max !== null && held.deliveryCount >= max && this.record.deadLetterQueue !== null)
      await this.#moveToDeadLetters(
        seq,
        held.meta,
        held.body,
        DEAD_LETTER_REASONS.maxDeliveryCount,
        undefined,
      );
    this.#held.delete(seq);
    this.#idleCheck();
  }

  async deadLetterMessage(
    receipt: ReceiptHandle,
    reason: string,
    description: string | undefined,
  ): Promise<void> {
    const [seq, held] = this.#message(receipt);
    await this.#moveToDeadLetters(seq, held.meta, held.body, reason, description);
    this.#settled(seq);
  }

  #settled(seq: number): void {
    this.#held.delete(seq);
    this.#gone.add(seq);
    this.#idleCheck();
  }

  #idleCheck(): void {
    if (this.#held.size === 0 && this.#onIdle !== undefined) this.#onIdle();
  }

  async #remove(seq: number): Promise<void> {
    const { link } = this.#deps;
    await link.call(`removing a message of session ${this.sessionId}`, async () => {
      try {
        await link.jsm.streams.deleteMessage(this.#stream, seq, false);
      } catch (error) {
        // Already gone (purged): the message is settled either way.
        if (!/no message found|not found/i.test(String((error as Error).message))) throw error;
      }
    });
    this.#gone.add(seq);
  }

  async #moveToDeadLetters(
    seq: number,
    meta: MessageMeta,
    body: Uint8Array,
    reason: string,
    description: string | undefined,
  ): Promise<void> {
    const target = await this.#deps.catalog.ensureDeadLetterQueue(this.record);
    if (target === undefined)
      throw new QueueError("Unsupported", `queue ${this.record.name} has no dead-letter queue`);
    const attributes: Record<string, string> = {
      ...meta.attributes,
      [DEAD_LETTER_ATTRIBUTES.reason]: reason,
      [DEAD_LETTER_ATTRIBUTES.sourceQueue]: this.record.name,
    };
    if (description !== undefined) attributes[DEAD_LETTER_ATTRIBUTES.description] = description;
    await transfer(this.#deps.link, this.#deps.prefix, this.record, target, meta, body, attributes);
    await this.#remove(seq);
  }

  async renewSessionLock(): Promise<Date> {
    const lock = this.#holding();
    const expiresAt = this.#deps.clock.now() + this.#deps.sessionLockMs;
    await this.#deps.locks.write(this.record.name, this.sessionId, lock, { ...lock.record, expiresAt });
    return new Date(expiresAt);
  }

  async getSessionState(): Promise<Uint8Array | null> {
    this.#holding();
    return this.#deps.locks.state(this.record.name, this.sessionId);
  }

  async setSessionState(state: Uint8Array | null): Promise<void> {
    this.#holding();
    await this.#deps.locks.setState(this.record.name, this.sessionId, state);
  }

  async closeSession(): Promise<void> {
    if (this.#closed) return;
    const lock = this.#lock;
    this.#end();
    if (lock === undefined || this.#deps.clock.now() >= lock.record.expiresAt) return;
    const deliveries = { ...lock.record.deliveries };
    for (const seq of this.#gone) delete deliveries[seq];
    // Let go at once; lost to a takeover already, there is nothing to let go.
    await this.#deps.locks
      .write(this.record.name, this.sessionId, lock, { owner: null, expiresAt: 0, deliveries })
      .catch((error: unknown) => {
        if (!QueueError.is(error, "SessionLockLost")) throw error;
      });
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

/** The stream sequence a session receipt names, when it was issued by the session of `owner`. */
function sequenceOf(receipt: ReceiptHandle, owner: string): number | undefined {
  const token = receipt.token;
  const bar = token.indexOf("|");
  if (!token.startsWith(SESSION_RECEIPT) || bar < 0 || token.slice(1, bar) !== owner) return undefined;
  const seq = Number(token.slice(bar + 1));
  return Number.isSafeInteger(seq) ? seq : undefined;
}

/** The owner token of a session receipt, or undefined for another kind. */
export function sessionOwnerOf(token: string): string | undefined {
  const bar = token.indexOf("|");
  return token.startsWith(SESSION_RECEIPT) && bar > 0 ? token.slice(1, bar) : undefined;
}

/**
 * The sessions of `record` that have messages, oldest first message first, by the stream's
 * per-subject counts (`subjects_filter`) and one direct get each.
 */
export async function sessionsWithMessages(deps: SessionDeps, record: QueueRecord): Promise<string[]> {
  const { link, catalog } = deps;
  const names = catalog.names(record.name);
  const info = await link.call(`looking for sessions of ${record.name}`, () =>
    link.jsm.streams.info(names.stream, { subjects_filter: names.sessions }),
  );
  const subjects = Object.entries(info.state.subjects ?? {}).filter(([, count]) => count > 0);
  const firsts = await Promise.all(
    subjects.map(async ([subject]) => {
      const first = await link.call(`looking for sessions of ${record.name}`, () =>
        link.jsm.direct.getMessage(names.stream, { seq: 0, next_by_subj: subject }),
      );
      return {
        id: untoken(subject.slice(subject.lastIndexOf(".") + 1)),
        seq: first?.seq ?? Number.MAX_SAFE_INTEGER,
      };
    }),
  );
  return firsts.sort((a, b) => a.seq - b.seq).map((first) => first.id);
}
