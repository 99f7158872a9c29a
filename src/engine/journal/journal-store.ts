import { QueueError } from "../../core/errors.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import type { SubscriptionRecord, TopicRecord } from "../../rules/topic-records.js";
import { MemoryStore, type QueueContents } from "../memory/memory-store.js";
import type {
  DuplicateRecord,
  EditableFields,
  GroupRecord,
  LockReference,
  MessageLock,
  MessageRecord,
  StateCounts,
} from "../records.js";
import type { QueueStore } from "../store.js";
import { JournalFile } from "./journal-file.js";
import {
  applyEntry,
  attributesEntry,
  duplicateEntry,
  groupEntry,
  type JournalEntry,
  lockEntry,
  messageEntry,
  snapshotEntries,
} from "./journal-records.js";

/** How a journal store keeps its file. */
export interface JournalStoreOptions {
  /** `NORMAL` (default) survives a crash of the process; `FULL` also power loss, syncing every commit. */
  synchronous?: "NORMAL" | "FULL";
  /** The journal is rewritten as a snapshot once it has grown by this many bytes since the last one, or by the snapshot's own size when that is larger (default 64 MiB). */
  compactAfterBytes?: number;
}

const COMPACT_AFTER_BYTES = 64 * 1024 * 1024;
/** A snapshot line ends after this many entries or characters, whichever comes first: lines stay far below V8's longest string, even of 1 MiB messages. */
const SNAPSHOT_ENTRIES_PER_LINE = 1_000;
const SNAPSHOT_LINE_CHARS = 16 * 1024 * 1024;

/**
 * A durable store for one process: queues and messages live in a {@link MemoryStore}, which
 * answers every read, and every transaction's changes are appended to a journal file as one line
 * before the transaction returns. Opening replays the journal; when it has grown well past what
 * it describes it is rewritten as a snapshot. A commit costs one `write` of a few hundred bytes
 * where SQLite writes whole pages of a table and its indexes; the price is that all messages are
 * held in memory and only one process may open the file.
 *
 * It holds the memory store rather than extending it, at the price of forwarding each read:
 * replaying writes to the inner store without journaling anything, and the memory store's own
 * calls (`deleteLocked` deleting the message) are not journaled a second time.
 */
export class JournalStore implements QueueStore {
  readonly #memory = new MemoryStore();
  readonly #file: JournalFile;
  readonly #compactAfterBytes: number;
  #pending: JournalEntry[] = [];
  #depth = 0;
  #compactAt: number;
  #failure: QueueError | undefined;
  #closed = false;

  /** Opens (or creates) the journal at `path` and replays it; a journal damaged before its last line is refused unchanged. */
  constructor(path: string, options: JournalStoreOptions = {}) {
    this.#compactAfterBytes = options.compactAfterBytes ?? COMPACT_AFTER_BYTES;
    if (!Number.isSafeInteger(this.#compactAfterBytes) || this.#compactAfterBytes < 1)
      throw new QueueError("Configuration", "compactAfterBytes must be a whole number of bytes");
    const synchronous = options.synchronous ?? "NORMAL";
    if (synchronous !== "NORMAL" && synchronous !== "FULL")
      throw new QueueError("Configuration", "synchronous must be NORMAL or FULL");
    const { file, contents } = JournalFile.open(path, synchronous === "FULL");
    this.#file = file;
    try {
      for (const [index, line] of contents.transactions.entries()) this.#replay(line, index);
      // What the journal describes is not known before replaying it, so a long one is compacted on every open.
      this.#compactAt = this.#compactAfterBytes;
      if (this.#file.size >= this.#compactAt) this.#compact();
    } catch (error) {
      this.#file.close();
      throw error;
    }
  }

  transaction<T>(fn: () => T): T {
    this.#usable();
    this.#depth++;
    try {
      return this.#memory.transaction(fn);
    } finally {
      if (--this.#depth === 0) this.#commit();
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#memory.close();
    this.#file.close();
  }

  getQueue(name: string): QueueRecord | undefined {
    this.#usable();
    return this.#memory.getQueue(name);
  }

  listQueues(): QueueRecord[] {
    this.#usable();
    return this.#memory.listQueues();
  }

  putQueue(queue: QueueRecord): void {
    this.#memory.putQueue(queue);
    this.#record(["queue", queue]);
  }

  deleteQueue(name: string): void {
    this.#memory.deleteQueue(name);
    this.#record(["drop-queue", name]);
  }

  getTopic(name: string): TopicRecord | undefined {
    this.#usable();
    return this.#memory.getTopic(name);
  }

  listTopics(): TopicRecord[] {
    this.#usable();
    return this.#memory.listTopics();
  }

  putTopic(topic: TopicRecord): void {
    this.#memory.putTopic(topic);
    this.#record(["topic", topic]);
  }

  deleteTopic(name: string): void {
    this.#memory.deleteTopic(name);
    this.#record(["drop-topic", name]);
  }

  listSubscriptions(topic: string): SubscriptionRecord[] {
    return this.#memory.listSubscriptions(topic);
  }

  putSubscription(subscription: SubscriptionRecord): void {
    this.#memory.putSubscription(subscription);
    this.#record(["subscription", subscription]);
  }

  deleteSubscription(topic: string, name: string): void {
    this.#memory.deleteSubscription(topic, name);
    this.#record(["drop-subscription", topic, name]);
  }

  insertMessage(queue: string, message: MessageRecord, _now: number): number {
    const seq = this.#memory.insertMessage(queue, message);
    this.#record(messageEntry(queue, message));
    return seq;
  }

  /** What the store holds of a queue (the snapshot it would write), or `undefined` when there is no such queue. */
  contents(queue: string): QueueContents | undefined {
    this.#usable();
    return this.#memory.contents(queue);
  }

  getMessage(queue: string, seq: number): MessageRecord | undefined {
    return this.#memory.getMessage(queue, seq);
  }

  getLock(queue: string, seq: number): MessageLock | undefined {
    return this.#memory.getLock(queue, seq);
  }

  updateMessage(queue: string, message: MessageLock): void {
    this.#memory.updateMessage(queue, message);
    this.#record(lockEntry(queue, message));
  }

  updateAttributes(queue: string, seq: number, fields: EditableFields): void {
    this.#memory.updateAttributes(queue, seq, fields);
    this.#record(attributesEntry(queue, seq, fields));
  }

  deleteMessage(queue: string, seq: number): void {
    this.#memory.deleteMessage(queue, seq);
    this.#record(["delete", queue, seq]);
  }

  deleteLocked(lock: LockReference, lockedAfter: number | undefined): string | null | undefined {
    const deleted = this.#memory.deleteLocked(lock, lockedAfter);
    if (deleted !== undefined) this.#record(["delete", lock.queue, lock.seq]);
    return deleted;
  }

  purgeMessages(queue: string): number {
    const purged = this.#memory.purgeMessages(queue);
    this.#record(["purge", queue]);
    return purged;
  }

  peekMessages(queue: string, fromSeq: number, limit: number): MessageRecord[] {
    return this.#memory.peekMessages(queue, fromSeq, limit);
  }

  readyMessages(queue: string, limit: number): MessageRecord[] {
    return this.#memory.readyMessages(queue, limit);
  }

  readyInGroup(queue: string, sessionId: string, limit: number): MessageRecord[] {
    return this.#memory.readyInGroup(queue, sessionId, limit);
  }

  lockedInGroup(queue: string, sessionId: string): MessageLock[] {
    return this.#memory.lockedInGroup(queue, sessionId);
  }

  availableGroups(queue: string, now: number, limit: number): string[] {
    return this.#memory.availableGroups(queue, now, limit);
  }

  dueMessages(queue: string, now: number, limit: number): MessageLock[] {
    return this.#memory.dueMessages(queue, now, limit);
  }

  expiredMessages(queue: string, now: number, limit: number): MessageLock[] {
    return this.#memory.expiredMessages(queue, now, limit);
  }

  nextWakeAt(queue: string, now: number): number | undefined {
    return this.#memory.nextWakeAt(queue, now);
  }

  countMessages(queue: string): StateCounts {
    return this.#memory.countMessages(queue);
  }

  getGroup(queue: string, sessionId: string): GroupRecord | undefined {
    return this.#memory.getGroup(queue, sessionId);
  }

  sessionLockedGroups(queue: string, now: number): string[] {
    return this.#memory.sessionLockedGroups(queue, now);
  }

  putGroup(queue: string, group: GroupRecord): void {
    this.#memory.putGroup(queue, group);
    this.#record(groupEntry(queue, group));
  }

  deleteGroup(queue: string, sessionId: string): void {
    this.#memory.deleteGroup(queue, sessionId);
    this.#record(["drop-group", queue, sessionId]);
  }

  findDuplicate(queue: string, deduplicationId: string, now: number): DuplicateRecord | undefined {
    return this.#memory.findDuplicate(queue, deduplicationId, now);
  }

  putDuplicate(queue: string, deduplicationId: string, record: DuplicateRecord): void {
    this.#memory.putDuplicate(queue, deduplicationId, record);
    this.#record(duplicateEntry(queue, deduplicationId, record));
  }

  /** Refuses calls once closed, or once a commit could not be written (memory and file would disagree). */
  #usable(): void {
    if (this.#failure !== undefined) throw this.#failure;
    if (this.#closed) throw new QueueError("ClientClosed", "the journal store has been closed");
  }

  // A change made outside any transaction is its own transaction.
  #record(entry: JournalEntry): void {
    this.#pending.push(entry);
    if (this.#depth === 0) this.#commit();
  }

  // Even a transaction that threw is written: the memory store has no rollback, so what it
  // changed before the throw stands, and the journal must say the same.
  #commit(): void {
    if (this.#pending.length === 0) return;
    const line = `${JSON.stringify(this.#pending)}\n`;
    this.#pending = [];
    try {
      this.#file.append(line);
    } catch (error) {
      this.#failure = new QueueError(
        "Provider",
        `could not write the journal ${this.#file.path} (${(error as Error).message}); reopen it to go on from what it holds`,
        { cause: error },
      );
      throw this.#failure;
    }
    if (this.#file.size >= this.#compactAt) this.#compact();
  }

  #replay(line: unknown, index: number): void {
    try {
      if (!Array.isArray(line)) throw new TypeError("a line is not a list of entries");
      for (const entry of line as JournalEntry[]) applyEntry(this.#memory, entry);
    } catch (error) {
      throw new QueueError(
        "Configuration",
        `the journal ${this.#file.path} does not replay at line ${index + 1}: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  // Rewrites the journal as a snapshot of what it describes. One that cannot be written (a full
  // disk) leaves the journal as it was, which is still whole: it is tried again after more growth.
  #compact(): void {
    try {
      this.#file.replace(this.#snapshot());
    } catch {
      this.#compactAt = this.#file.size + this.#compactAfterBytes;
      return;
    }
    this.#compactAt = this.#file.size + Math.max(this.#compactAfterBytes, this.#file.size);
  }

  *#snapshot(): Generator<string> {
    let entries: string[] = [];
    let length = 0;
    for (const entry of this.#topicEntries()) entries.push(JSON.stringify(entry));
    for (const queue of this.#memory.listQueues()) {
      for (const entry of snapshotEntries(this.#memory.contents(queue.name)!)) {
        const text = JSON.stringify(entry);
        entries.push(text);
        length += text.length;
        if (entries.length === SNAPSHOT_ENTRIES_PER_LINE || length >= SNAPSHOT_LINE_CHARS) {
          yield `[${entries.join(",")}]\n`;
          entries = [];
          length = 0;
        }
      }
    }
    if (entries.length > 0) yield `[${entries.join(",")}]\n`;
  }

  /** The topics and their subscriptions, as a snapshot writes them first. */
  *#topicEntries(): Generator<JournalEntry> {
    for (const topic of this.#memory.listTopics()) {
      yield ["topic", topic];
      for (const subscription of this.#memory.listSubscriptions(topic.name))
        yield ["subscription", subscription];
    }
  }
}
