import type BetterSqlite3 from "better-sqlite3";
import Database from "better-sqlite3";
import { BoundedCache } from "../../core/bounded-cache.js";
import { type Clock, systemClock } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import type { SubscriptionRecord, TopicRecord } from "../../rules/topic-records.js";
import {
  type DuplicateRecord,
  type EditableFields,
  type GroupLockKind,
  type GroupRecord,
  type LockReference,
  MESSAGE_STATES,
  type MessageLock,
  type MessageRecord,
  type StateCounts,
} from "../records.js";
import type { QueueStore } from "../store.js";
import { Checkpointer } from "./checkpointer.js";
import {
  decodePayload,
  encodePayload,
  type LockRow,
  type MessageRow,
  STATE_CODE,
  toLock,
  toRecord,
} from "./message-rows.js";
import { openSchema } from "./schema.js";
import { prepareStatements, type Statements } from "./statements.js";

/** How a SQLite store opens its file. */
export interface SqliteStoreOptions {
  /** `NORMAL` (default) survives process crashes; `FULL` also power loss, at a cost per commit. */
  synchronous?: "NORMAL" | "FULL";
  /** How long one attempt waits for another process's write lock (default 5 000). */
  busyTimeoutMs?: number;
  /**
   * Pages the write-ahead log may hold before a commit finishes the checkpoint itself, so that
   * the log starts over (default 8 192, 32 MiB of 4 KiB pages).
   */
  walLimitPages?: number;
  /** The time by which a queue's settings read outside a transaction age (the system clock by default). */
  clock?: Clock;
}

/** Sequence numbers never fall below `now × this`: room for a thousand sends a millisecond before they run ahead of the clock, and safe integers until the year 2250. */
const SEQUENCES_PER_MS = 1_024;
/** Transactions between two rounds of housekeeping (expired deduplication ids, free pages). */
const HOUSEKEEPING_EVERY = 2_000;
/** Pages in the write-ahead log beyond which a commit checkpoints by itself (32 MiB). */
const WAL_LIMIT_PAGES = 8_192;
/** Free pages the file may hold before they are handed back to the file system. */
const FREE_PAGES_KEPT = 2_048;
/**
 * How long a queue's settings read outside a transaction are trusted before being read again.
 * A read outside a transaction is a transaction of its own (four lock calls); a server checks its
 * queue on every request. Changes made here are seen at once, another process's within this time
 * (SQS itself takes up to a minute); inside a transaction the settings are always read afresh.
 */
const SETTINGS_FRESH_MS = 100;
/** Attempts at a transaction that keeps meeting another process's lock before giving up (transiently). */
const BUSY_ATTEMPTS = 3;

type GroupRow = [
  lockKind: string | null,
  lockToken: string | null,
  lockedUntil: number,
  state: Buffer | null,
];

interface CachedQueue {
  readonly id: number;
  readonly settings: string;
  readonly record: QueueRecord;
  /** When the row was last read or written here (ms, by the store's clock). */
  seenAt: number;
}

function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

/**
 * The engine's storage in one SQLite file (WAL), shared safely by every process that opens it:
 * each transaction takes the write lock at its start (`BEGIN IMMEDIATE`), so two processes never
 * lock the same message, and a busy file is waited for, then retried, never reported as such.
 */
export class SqliteStore implements QueueStore {
  readonly db: BetterSqlite3.Database;
  readonly #sql: Statements;
  readonly #queues = new Map<string, CachedQueue>();
  readonly #readThisTransaction = new Set<string>();
  /** Subscription records by their stored text; records are never changed in place, so they are shared. */
  readonly #subscriptionRecords = new BoundedCache<string, SubscriptionRecord>(10_000);
  readonly #clock: Clock;
  #checkpointer: Checkpointer | undefined;
  #depth = 0;
  #dataVersion = -1;
  /** `PRAGMA data_version` when the last transaction began: another connection's commit changes it. */
  #cacheVersion = -1;
  /** Whether no other connection committed since the last transaction: what the cache holds is current. */
  #cacheCurrent = false;
  #commits = 0;
  /** The engine's latest time, so housekeeping follows its clock (virtual in tests). */
  #now = 0;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.#clock = options.clock ?? systemClock;
    try {
      this.db = new Database(path);
    } catch (error) {
      throw cannotOpen(path, error);
    }
    try {
      openSchema(this.db, options.synchronous ?? "NORMAL", options.busyTimeoutMs ?? 5_000);
    } catch (error) {
      this.db.close();
      if (error instanceof QueueError) throw error;
      // Not a database, or a damaged one, is named like a file that cannot be opened at all.
      throw isBusy(error) ? this.#failure(error) : cannotOpen(path, error);
    }
    this.#sql = prepareStatements(this.db);
    if (this.db.memory) return;
    // The worker copies the log into the file while writes go on, but a log only starts over once
    // a checkpoint has caught up with it, which never happens under continuous writes: past this
    // size, a commit here finishes the checkpoint (the remainder since the worker's last pass).
    this.db.pragma(`wal_autocheckpoint = ${options.walLimitPages ?? WAL_LIMIT_PAGES}`);
    this.#checkpointer = new Checkpointer(path, () => {
      if (this.db.open) this.db.pragma("wal_autocheckpoint = 1000");
    });
  }

  transaction<T>(fn: () => T): T {
    if (this.#depth > 0) return fn();
    for (let attempt = 1; ; attempt++) {
      try {
        this.#sql.begin.run();
      } catch (error) {
        if (isBusy(error) && attempt < BUSY_ATTEMPTS) continue;
        throw this.#failure(error);
      }
      this.#depth++;
      this.#readThisTransaction.clear();
      // One read tells whether any queue row may have changed; if not, cached rows need no read.
      const version = this.#sql.dataVersion.get() as number;
      this.#cacheCurrent = version === this.#cacheVersion;
      this.#cacheVersion = version;
      try {
        const result = fn();
        this.#sql.commit.run();
        this.#afterCommit();
        return result;
      } catch (error) {
        if (this.db.inTransaction) this.#sql.rollback.run();
        this.#queues.clear();
        if (error instanceof QueueError) throw error;
        if (isBusy(error) && attempt < BUSY_ATTEMPTS) continue;
        throw this.#failure(error);
      } finally {
        this.#depth--;
      }
    }
  }

  /** Closes the connection; resolves once the checkpoint thread has closed its own (the last one removes the log files). */
  async close(): Promise<void> {
    const stopped = this.#checkpointer?.stop();
    this.#checkpointer = undefined;
    if (this.db.open) this.db.close();
    await stopped;
  }

  getQueue(name: string): QueueRecord | undefined {
    return this.#cached(name)?.record;
  }

  listQueues(): QueueRecord[] {
    return (this.#sql.listQueues.all() as string[]).map((name) => this.getQueue(name)!);
  }

  putQueue(queue: QueueRecord): void {
    const { name, ...fields } = queue;
    const settings = JSON.stringify(fields);
    const existing = this.#cached(name);
    let id: number;
    if (existing === undefined) id = Number(this.#sql.insertQueue.run(name, settings).lastInsertRowid);
    else {
      id = existing.id;
      this.#sql.updateQueue.run(settings, id);
    }
    this.#queues.set(name, { id, settings, record: queue, seenAt: this.#clock.now() });
  }

  deleteQueue(name: string): void {
    const id = this.#id(name);
    if (id === undefined) return;
    this.#sql.purgeReady.run(id);
    this.#sql.purgeWaiting.run(id);
    this.#sql.deleteGroups.run(id);
    this.#sql.deleteDuplicates.run(id);
    this.#sql.deleteQueue.run(id);
    this.#queues.delete(name);
    this.#readThisTransaction.delete(name);
  }

  getTopic(name: string): TopicRecord | undefined {
    const settings = this.#sql.getTopic.get(name) as string | undefined;
    return settings === undefined ? undefined : (JSON.parse(settings) as TopicRecord);
  }

  listTopics(): TopicRecord[] {
    return (this.#sql.listTopics.all() as string[]).map((settings) => JSON.parse(settings) as TopicRecord);
  }

  putTopic(topic: TopicRecord): void {
    this.#sql.putTopic.run(topic.name, JSON.stringify(topic));
  }

  deleteTopic(name: string): void {
    this.#sql.deleteTopic.run(name);
    this.#sql.deleteTopicSubscriptions.run(name);
  }

  listSubscriptions(topic: string): SubscriptionRecord[] {
    return (this.#sql.listSubscriptions.all(topic) as string[]).map((settings) => {
      // Every publish reads its topic's subscriptions: each stored text is parsed once.
      const parsed = this.#subscriptionRecords.get(settings);
      if (parsed !== undefined) return parsed;
      const record = JSON.parse(settings) as SubscriptionRecord;
      this.#subscriptionRecords.set(settings, record);
      return record;
    });
  }

  putSubscription(subscription: SubscriptionRecord): void {
    this.#sql.putSubscription.run(subscription.topic, subscription.name, JSON.stringify(subscription));
  }

  deleteSubscription(topic: string, name: string): void {
    this.#sql.deleteSubscription.run(topic, name);
  }

  insertMessage(queue: string, message: MessageRecord, now: number): number {
    const id = this.#existingId(queue);
    const { lastInsertRowid } = this.#sql.insertMessage.run(
      now * SEQUENCES_PER_MS,
      id,
      message.sessionId ?? null,
      message.expiresAt,
      STATE_CODE[message.state],
      message.visibleAt,
      message.lockToken,
      message.deliveryCount,
      message.firstDeliveredAt,
      message.deliveredAt,
      encodePayload(message),
    );
    message.seq = Number(lastInsertRowid);
    this.#trackGroup(queue, id, message.sessionId);
    return message.seq;
  }

  getMessage(queue: string, seq: number): MessageRecord | undefined {
    const id = this.#id(queue);
    const row = id === undefined ? undefined : (this.#sql.getMessage.get(seq, id) as MessageRow | undefined);
    return row === undefined ? undefined : toRecord(row);
  }

  getLock(queue: string, seq: number): MessageLock | undefined {
    const id = this.#id(queue);
    const row = id === undefined ? undefined : (this.#sql.getLock.get(seq, id) as LockRow | undefined);
    return row === undefined ? undefined : toLock(row);
  }

  updateMessage(queue: string, message: MessageLock): void {
    const id = this.#existingId(queue);
    this.#sql.updateMessage.run(
      STATE_CODE[message.state],
      message.visibleAt,
      message.lockToken,
      message.deliveryCount,
      message.firstDeliveredAt,
      message.deliveredAt,
      message.seq,
      id,
    );
    this.#trackGroup(queue, id, message.sessionId);
  }

  updateAttributes(queue: string, seq: number, { attributes, properties }: EditableFields): void {
    const id = this.#existingId(queue);
    const payload = this.#sql.getPayload.get(seq, id) as Buffer | undefined;
    if (payload === undefined) throw new QueueError("MessageNotFound", `message ${seq} is not in ${queue}`);
    this.#sql.updatePayload.run(
      encodePayload({ ...decodePayload(payload), attributes, properties }),
      seq,
      id,
    );
  }

  deleteMessage(queue: string, seq: number): void {
    const id = this.#id(queue);
    if (id === undefined) return;
    this.#deleted(queue, id, this.#sql.deleteMessage.get(seq, id) as string | null | undefined);
  }

  deleteLocked(lock: LockReference, lockedAfter: number | undefined): string | null | undefined {
    const id = this.#id(lock.queue);
    if (id === undefined) return undefined;
    const sessionId = (
      lockedAfter === undefined
        ? this.#sql.deleteLockedAnyTime.get(lock.seq, id, lock.lockToken)
        : this.#sql.deleteLocked.get(lock.seq, id, lock.lockToken, lockedAfter)
    ) as string | null | undefined;
    this.#deleted(lock.queue, id, sessionId);
    return sessionId;
  }

  // After a delete that returned the message's session (`undefined`: nothing was deleted), the group's bookkeeping.
  #deleted(queue: string, id: number, sessionId: string | null | undefined): void {
    if (sessionId == null || !this.#cached(queue)?.record.fifo) return;
    this.#trackGroup(queue, id, sessionId);
    this.#sql.dropIdleGroup.run({ queue: id, session: sessionId });
  }

  purgeMessages(queue: string): number {
    const id = this.#id(queue);
    if (id === undefined) return 0;
    const count = this.#sql.purgeReady.run(id).changes + this.#sql.purgeWaiting.run(id).changes;
    this.#sql.clearHeads.run(id);
    return count;
  }

  peekMessages(queue: string, fromSeq: number, limit: number): MessageRecord[] {
    return this.#rows(queue, (id) => this.#sql.peekMessages(limit).all(fromSeq, id) as MessageRow[]).map(
      toRecord,
    );
  }

  readyMessages(queue: string, limit: number): MessageRecord[] {
    return this.#rows(queue, (id) => this.#sql.readyMessages(limit).all(id) as MessageRow[]).map(toRecord);
  }

  readyInGroup(queue: string, sessionId: string, limit: number): MessageRecord[] {
    return this.#rows(queue, (id) => this.#sql.readyInGroup(limit).all(id, sessionId) as MessageRow[]).map(
      toRecord,
    );
  }

  lockedInGroup(queue: string, sessionId: string): MessageLock[] {
    return this.#rows(queue, (id) => this.#sql.lockedInGroup.all(id, sessionId) as LockRow[]).map(toLock);
  }

  availableGroups(queue: string, now: number, limit: number): string[] {
    return this.#rows(queue, (id) =>
      (this.#sql.availableGroups(limit).all(id, now) as [string][]).map((row) => row[0]),
    );
  }

  dueMessages(queue: string, now: number, limit: number): MessageLock[] {
    this.#now = now;
    return this.#rows(queue, (id) => this.#sql.dueMessages(limit).all(id, now) as LockRow[]).map(toLock);
  }

  expiredMessages(queue: string, now: number, limit: number): MessageLock[] {
    return this.#rows(queue, (id) => this.#sql.expiredMessages(limit).all(id, now) as LockRow[]).map(toLock);
  }

  nextWakeAt(queue: string, now: number): number | undefined {
    const id = this.#id(queue);
    if (id === undefined) return undefined;
    const due = this.#sql.nextDue.get(id) as number | null;
    const unlock = this.#sql.nextUnlock.get(id, now) as number | null;
    if (due === null) return unlock ?? undefined;
    return unlock === null ? due : Math.min(due, unlock);
  }

  countMessages(queue: string): StateCounts {
    const counts: StateCounts = { ready: 0, delayed: 0, locked: 0 };
    const id = this.#id(queue);
    if (id === undefined) return counts;
    counts.ready = this.#sql.countReady.get(id) as number;
    for (const [state, count] of this.#sql.countWaiting.all(id) as [number, number][])
      counts[MESSAGE_STATES[state]!] = count;
    return counts;
  }

  getGroup(queue: string, sessionId: string): GroupRecord | undefined {
    const id = this.#id(queue);
    const row =
      id === undefined ? undefined : (this.#sql.getGroup.get(id, sessionId) as GroupRow | undefined);
    if (row === undefined) return undefined;
    return {
      sessionId,
      lockKind: row[0] as GroupLockKind | null,
      lockToken: row[1],
      lockedUntil: row[2],
      state: row[3],
    };
  }

  sessionLockedGroups(queue: string, now: number): string[] {
    return this.#rows(queue, (id) => this.#sql.sessionLockedGroups.all(id, now) as string[]);
  }

  putGroup(queue: string, group: GroupRecord): void {
    const id = this.#existingId(queue);
    this.#sql.putGroup.run(
      id,
      group.sessionId,
      group.lockKind,
      group.lockToken,
      group.lockedUntil,
      group.state,
      id,
      group.sessionId,
    );
  }

  deleteGroup(queue: string, sessionId: string): void {
    const id = this.#id(queue);
    if (id === undefined) return;
    this.#sql.releaseGroup.run(id, sessionId);
    this.#sql.dropIdleGroup.run({ queue: id, session: sessionId });
  }

  findDuplicate(queue: string, deduplicationId: string, now: number): DuplicateRecord | undefined {
    this.#now = now;
    const id = this.#id(queue);
    const row =
      id === undefined
        ? undefined
        : (this.#sql.findDuplicate.get(id, deduplicationId, now) as [string, number, number] | undefined);
    return row === undefined ? undefined : { messageId: row[0], seq: row[1], expiresAt: row[2] };
  }

  putDuplicate(queue: string, deduplicationId: string, record: DuplicateRecord): void {
    this.#sql.putDuplicate.run(
      this.#existingId(queue),
      deduplicationId,
      record.messageId,
      record.seq,
      record.expiresAt,
    );
  }

  changedElsewhere(): boolean {
    const version = this.#sql.dataVersion.get() as number;
    const changed = version !== this.#dataVersion;
    this.#dataVersion = version;
    return changed;
  }

  /** Size of the file in pages and how many of them are free, for tests of growth. */
  pageCounts(): { pages: number; free: number } {
    return {
      pages: this.db.pragma("page_count", { simple: true }) as number,
      free: this.db.pragma("freelist_count", { simple: true }) as number,
    };
  }

  /** Forgets expired deduplication ids and hands free pages beyond a small reserve back to the file system. */
  housekeeping(): void {
    try {
      if (this.#now > 0) this.#sql.pruneDuplicates.run(this.#now);
      const free = this.db.pragma("freelist_count", { simple: true }) as number;
      if (free > FREE_PAGES_KEPT) this.db.pragma(`incremental_vacuum(${free - FREE_PAGES_KEPT})`);
    } catch (error) {
      if (!isBusy(error)) throw this.#failure(error);
    }
  }

  // A queue's id and settings: read once per transaction (no other process can change them meanwhile),
  // and outside one when the copy here is older than SETTINGS_FRESH_MS.
  #cached(name: string): CachedQueue | undefined {
    // Inside a transaction (every message operation), a queue read once costs no clock reading, and
    // none is read again while no other connection has committed since the last transaction.
    if (
      this.#depth > 0 &&
      (this.#readThisTransaction.has(name) || (this.#cacheCurrent && this.#queues.has(name)))
    )
      return this.#queues.get(name);
    const now = this.#clock.now();
    let row: [number, string] | undefined;
    if (this.#depth > 0) {
      this.#readThisTransaction.add(name);
      row = this.#sql.getQueue.get(name) as typeof row;
    } else {
      const cached = this.#queues.get(name);
      // A clock set back makes the age negative: read again rather than trust the copy until it catches up.
      const age = cached === undefined ? Number.NaN : now - cached.seenAt;
      if (age >= 0 && age < SETTINGS_FRESH_MS && this.db.open) return cached;
      try {
        row = this.#sql.getQueue.get(name) as typeof row;
      } catch (error) {
        throw this.#failure(error);
      }
    }
    if (row === undefined) {
      this.#queues.delete(name);
      return undefined;
    }
    const [id, settings] = row;
    const cached = this.#queues.get(name);
    if (cached !== undefined && cached.id === id && cached.settings === settings) {
      cached.seenAt = now;
      return cached;
    }
    const fresh = {
      id,
      settings,
      record: { ...(JSON.parse(settings) as Omit<QueueRecord, "name">), name },
      seenAt: now,
    };
    this.#queues.set(name, fresh);
    return fresh;
  }

  #id(name: string): number | undefined {
    return this.#cached(name)?.id;
  }

  #existingId(name: string): number {
    const id = this.#id(name);
    if (id === undefined) throw new QueueError("QueueNotFound", `queue ${name} does not exist`);
    return id;
  }

  #rows<T>(queue: string, read: (id: number) => T[]): T[] {
    const id = this.#id(queue);
    return id === undefined ? [] : read(id);
  }

  // Keeps a FIFO group's row and the sequence of its oldest ready message current.
  #trackGroup(queue: string, id: number, sessionId: string | undefined): void {
    if (sessionId !== undefined && this.#cached(queue)?.record.fifo)
      this.#sql.trackGroup.run(id, sessionId, id, sessionId);
  }

  // Upkeep every so many commits, so a store under steady load keeps its size.
  #afterCommit(): void {
    if (++this.#commits % HOUSEKEEPING_EVERY === 0) this.housekeeping();
  }

  #failure(error: unknown): QueueError {
    if (isBusy(error))
      return new QueueError("Timeout", `the SQLite file ${this.db.name} stayed locked by another process`, {
        cause: error,
      });
    const message = error instanceof Error ? error.message : String(error);
    return new QueueError("Provider", `SQLite: ${message}`, { cause: error, isTransient: false });
  }
}

/** The error for an SQLite file that cannot be opened or is not a queue-runtime database. */
function cannotOpen(path: string, error: unknown): QueueError {
  return new QueueError("Configuration", `cannot open SQLite file ${path}: ${(error as Error).message}`, {
    cause: error,
  });
}
