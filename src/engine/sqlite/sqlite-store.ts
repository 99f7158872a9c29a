import type BetterSqlite3 from "better-sqlite3";
import Database from "better-sqlite3";
import { QueueError } from "../../core/errors.js";
import {
  type DuplicateRecord,
  type GroupLockKind,
  type GroupRecord,
  MESSAGE_STATES,
  type MessageLock,
  type MessageRecord,
  type QueueRecord,
  type StateCounts,
} from "../records.js";
import type { QueueStore } from "../store.js";
import { Checkpointer } from "./checkpointer.js";
import { openSchema } from "./schema.js";
import { prepareStatements, type Statements } from "./statements.js";

/** How a SQLite store opens its file. */
export interface SqliteStoreOptions {
  /** `NORMAL` (default) survives process crashes; `FULL` also power loss, at a cost per commit. */
  synchronous?: "NORMAL" | "FULL";
  /** How long one attempt waits for another process's write lock (default 5 000). */
  busyTimeoutMs?: number;
}

// A message row as an array in the column order of MESSAGE_COLUMNS: better-sqlite3 builds
// arrays (raw mode) several times faster than objects with seventeen keys.
type MessageRow = [
  seq: number,
  queue: string,
  messageId: string,
  body: Buffer,
  attributes: string | null,
  sessionId: string | null,
  correlationId: string | null,
  contentType: string | null,
  properties: string | null,
  enqueuedAt: number,
  expiresAt: number | null,
  state: number,
  visibleAt: number,
  lockToken: string | null,
  deliveryCount: number,
  firstDeliveredAt: number | null,
  deliveredAt: number | null,
];

interface GroupRow {
  lock_kind: string | null;
  lock_token: string | null;
  locked_until: number;
  state: Buffer | null;
}

const STATE_CODE = { ready: 0, delayed: 1, locked: 2 } as const;
/** Sequence numbers never fall below `now × this`: room for a thousand sends a millisecond before they run ahead of the clock, and safe integers until the year 2250. */
const SEQUENCES_PER_MS = 1_024;
/** Transactions between two rounds of housekeeping (expired deduplication ids, free pages). */
const HOUSEKEEPING_EVERY = 2_000;
/** Free pages the file may hold before they are handed back to the file system. */
const FREE_PAGES_KEPT = 2_048;
/** Attempts at a transaction that keeps meeting another process's lock before giving up (transiently). */
const BUSY_ATTEMPTS = 3;

const optionalJson = (text: string | null): Record<string, string> | undefined =>
  text === null ? undefined : (JSON.parse(text) as Record<string, string>);
const jsonOrNull = (value: Readonly<Record<string, string>> | undefined): string | null =>
  value === undefined ? null : JSON.stringify(value);

// A message's lock fields in the column order of LOCK_COLUMNS.
type LockRow = [
  seq: number,
  sessionId: string | null,
  expiresAt: number | null,
  state: number,
  visibleAt: number,
  lockToken: string | null,
  deliveryCount: number,
  firstDeliveredAt: number | null,
  deliveredAt: number | null,
];

function toLock(row: LockRow): MessageLock {
  return {
    seq: row[0],
    sessionId: row[1] ?? undefined,
    expiresAt: row[2],
    state: MESSAGE_STATES[row[3]]!,
    visibleAt: row[4],
    lockToken: row[5],
    deliveryCount: row[6],
    firstDeliveredAt: row[7],
    deliveredAt: row[8],
  };
}

function toRecord(row: MessageRow): MessageRecord {
  return {
    seq: row[0],
    messageId: row[2],
    body: row[3],
    attributes: optionalJson(row[4]),
    sessionId: row[5] ?? undefined,
    correlationId: row[6] ?? undefined,
    contentType: row[7] ?? undefined,
    properties: optionalJson(row[8]),
    enqueuedAt: row[9],
    expiresAt: row[10],
    state: MESSAGE_STATES[row[11]]!,
    visibleAt: row[12],
    lockToken: row[13],
    deliveryCount: row[14],
    firstDeliveredAt: row[15],
    deliveredAt: row[16],
  };
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
  readonly #queues = new Map<string, { settings: string; record: QueueRecord }>();
  readonly #readThisTransaction = new Set<string>();
  #checkpointer: Checkpointer | undefined;
  #depth = 0;
  #dataVersion = -1;
  #commits = 0;
  /** The engine's latest time, so housekeeping follows its clock (virtual in tests). */
  #now = 0;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    try {
      this.db = new Database(path);
    } catch (error) {
      throw new QueueError("Configuration", `cannot open SQLite file ${path}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    try {
      openSchema(this.db, options.synchronous ?? "NORMAL", options.busyTimeoutMs ?? 5_000);
    } catch (error) {
      this.db.close();
      throw error instanceof QueueError ? error : this.#failure(error);
    }
    this.#sql = prepareStatements(this.db);
    if (this.db.memory) return;
    this.db.pragma("wal_autocheckpoint = 0");
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

  close(): void {
    this.#checkpointer?.stop();
    if (this.db.open) this.db.close();
  }

  getQueue(name: string): QueueRecord | undefined {
    // Within one transaction no other process can change a queue: read its settings once.
    if (this.#depth > 0 && this.#readThisTransaction.has(name)) return this.#queues.get(name)?.record;
    if (this.#depth > 0) this.#readThisTransaction.add(name);
    const row = this.#sql.getQueue.get(name) as { settings: string } | undefined;
    if (row === undefined) {
      this.#queues.delete(name);
      return undefined;
    }
    const cached = this.#queues.get(name);
    if (cached !== undefined && cached.settings === row.settings) return cached.record;
    const record = { ...(JSON.parse(row.settings) as Omit<QueueRecord, "name">), name };
    this.#queues.set(name, { settings: row.settings, record });
    return record;
  }

  listQueues(): QueueRecord[] {
    return (this.#sql.listQueues.all() as { name: string }[]).map((row) => this.getQueue(row.name)!);
  }

  putQueue(queue: QueueRecord): void {
    const { name, ...settings } = queue;
    this.#sql.putQueue.run(name, JSON.stringify(settings));
    this.#readThisTransaction.delete(name);
  }

  deleteQueue(name: string): void {
    this.#sql.deleteQueue.run(name);
    this.purgeMessages(name);
    this.#sql.deleteGroups.run(name);
    this.#sql.deleteDuplicates.run(name);
    this.#queues.delete(name);
    this.#readThisTransaction.delete(name);
  }

  insertMessage(queue: string, message: MessageRecord, now: number): number {
    const { lastInsertRowid } = this.#sql.insertMessage.run(
      now * SEQUENCES_PER_MS,
      queue,
      message.messageId,
      message.body,
      jsonOrNull(message.attributes),
      message.sessionId ?? null,
      message.correlationId ?? null,
      message.contentType ?? null,
      jsonOrNull(message.properties),
      message.enqueuedAt,
      message.expiresAt,
      STATE_CODE[message.state],
      message.visibleAt,
      message.lockToken,
      message.deliveryCount,
      message.firstDeliveredAt,
      message.deliveredAt,
    );
    message.seq = Number(lastInsertRowid);
    this.#trackGroup(queue, message.sessionId);
    return message.seq;
  }

  getMessage(queue: string, seq: number): MessageRecord | undefined {
    const row = this.#sql.getMessage.get(seq, queue) as MessageRow | undefined;
    return row === undefined ? undefined : toRecord(row);
  }

  getLock(queue: string, seq: number): MessageLock | undefined {
    const row = this.#sql.getLock.get(seq, queue) as LockRow | undefined;
    return row === undefined ? undefined : toLock(row);
  }

  updateMessage(queue: string, message: MessageLock): void {
    this.#sql.updateMessage.run(
      STATE_CODE[message.state],
      message.visibleAt,
      message.lockToken,
      message.deliveryCount,
      message.firstDeliveredAt,
      message.deliveredAt,
      message.seq,
      queue,
    );
    this.#trackGroup(queue, message.sessionId);
  }

  deleteMessage(queue: string, seq: number): void {
    const row = this.#sql.deleteMessage.get(seq, queue) as { session_id: string | null } | undefined;
    if (row?.session_id == null || !this.#isFifo(queue)) return;
    this.#trackGroup(queue, row.session_id);
    this.#sql.dropIdleGroup.run({ queue, session: row.session_id });
  }

  purgeMessages(queue: string): number {
    const ready = this.#sql.purgeReady.run(queue).changes;
    const waiting = this.#sql.purgeWaiting.run(queue).changes;
    this.#sql.clearHeads.run(queue);
    return ready + waiting;
  }

  readyMessages(queue: string, limit: number): MessageRecord[] {
    return (this.#sql.readyMessages(limit).all(queue) as MessageRow[]).map(toRecord);
  }

  readyInGroup(queue: string, sessionId: string, limit: number): MessageRecord[] {
    return (this.#sql.readyInGroup(limit).all(queue, sessionId) as MessageRow[]).map(toRecord);
  }

  lockedInGroup(queue: string, sessionId: string): MessageLock[] {
    return (this.#sql.lockedInGroup.all(queue, sessionId) as LockRow[]).map(toLock);
  }

  availableGroups(queue: string, now: number, limit: number): string[] {
    return (this.#sql.availableGroups(limit).all(queue, now) as [string][]).map((row) => row[0]);
  }

  dueMessages(queue: string, now: number, limit: number): MessageLock[] {
    this.#now = now;
    return (this.#sql.dueMessages(limit).all(queue, now) as LockRow[]).map(toLock);
  }

  expiredMessages(queue: string, now: number, limit: number): MessageLock[] {
    return (this.#sql.expiredMessages(limit).all(queue, now) as LockRow[]).map(toLock);
  }

  nextWakeAt(queue: string, now: number): number | undefined {
    const due = (this.#sql.nextDue.get(queue) as { at: number | null }).at;
    const unlock = (this.#sql.nextUnlock.get(queue, now) as { at: number | null }).at;
    if (due === null) return unlock ?? undefined;
    return unlock === null ? due : Math.min(due, unlock);
  }

  countMessages(queue: string): StateCounts {
    const counts: StateCounts = { ready: 0, delayed: 0, locked: 0 };
    counts.ready = (this.#sql.countReady.get(queue) as { n: number }).n;
    for (const row of this.#sql.countWaiting.all(queue) as { state: number; n: number }[])
      counts[MESSAGE_STATES[row.state]!] = row.n;
    return counts;
  }

  getGroup(queue: string, sessionId: string): GroupRecord | undefined {
    const row = this.#sql.getGroup.get(queue, sessionId) as GroupRow | undefined;
    if (row === undefined) return undefined;
    return {
      sessionId,
      lockKind: row.lock_kind as GroupLockKind | null,
      lockToken: row.lock_token,
      lockedUntil: row.locked_until,
      state: row.state,
    };
  }

  putGroup(queue: string, group: GroupRecord): void {
    this.#sql.putGroup.run(
      queue,
      group.sessionId,
      group.lockKind,
      group.lockToken,
      group.lockedUntil,
      group.state,
      queue,
      group.sessionId,
    );
  }

  deleteGroup(queue: string, sessionId: string): void {
    this.#sql.releaseGroup.run(queue, sessionId);
    this.#sql.dropIdleGroup.run({ queue, session: sessionId });
  }

  findDuplicate(queue: string, deduplicationId: string, now: number): DuplicateRecord | undefined {
    this.#now = now;
    const row = this.#sql.findDuplicate.get(queue, deduplicationId, now) as
      | { message_id: string; seq: number; expires_at: number }
      | undefined;
    return row === undefined
      ? undefined
      : { messageId: row.message_id, seq: row.seq, expiresAt: row.expires_at };
  }

  putDuplicate(queue: string, deduplicationId: string, record: DuplicateRecord): void {
    this.#sql.putDuplicate.run(queue, deduplicationId, record.messageId, record.seq, record.expiresAt);
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

  #isFifo(queue: string): boolean {
    return (this.#queues.get(queue)?.record ?? this.getQueue(queue))?.fifo === true;
  }

  // Keeps a FIFO group's row and the sequence of its oldest ready message current.
  #trackGroup(queue: string, sessionId: string | undefined): void {
    if (sessionId !== undefined && this.#isFifo(queue))
      this.#sql.trackGroup.run(queue, sessionId, queue, sessionId);
  }

  // Upkeep every so many commits, so a store under steady load keeps its size.
  #afterCommit(): void {
    if (++this.#commits % HOUSEKEEPING_EVERY === 0) this.housekeeping();
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

  #failure(error: unknown): QueueError {
    if (isBusy(error))
      return new QueueError("Timeout", `the SQLite file ${this.db.name} stayed locked by another process`, {
        cause: error,
      });
    const message = error instanceof Error ? error.message : String(error);
    return new QueueError("Provider", `SQLite: ${message}`, { cause: error, isTransient: false });
  }
}
