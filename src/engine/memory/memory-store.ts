import { QueueError } from "../../core/errors.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import type { SubscriptionRecord, TopicRecord } from "../../rules/topic-records.js";
import {
  type DuplicateRecord,
  type EditableFields,
  type GroupRecord,
  holdsLock,
  type LockReference,
  type MessageLock,
  type MessageRecord,
  type MessageState,
  type StateCounts,
} from "../records.js";
import type { QueueStore } from "../store.js";
import { OrderedQueue, type Verdict } from "./ordered-queue.js";

// A stored message and the version of its last write: time-index entries of older versions are
// stale. A slot is its own entry in the ready index (keyed by its fixed sequence number), so
// filing a message as ready allocates nothing; `inReady` keeps it from being filed twice.
interface Slot {
  readonly key: number;
  readonly tie: number;
  record: MessageRecord;
  version: number;
  state: MessageState;
  inReady: boolean;
  readonly group: Group | undefined;
}

interface MessageEntry {
  readonly key: number;
  readonly tie: number;
  readonly slot: Slot;
  readonly version: number;
}

interface Group {
  readonly sessionId: string;
  record: GroupRecord | undefined;
  readonly ready: OrderedQueue<Slot>;
  readonly locked: Set<Slot>;
  messages: number;
  /** The head for which an availability entry was last queued. */
  announcedHead: number;
}

interface GroupEntry {
  readonly key: number;
  readonly tie: number;
  readonly group: Group;
}

interface DuplicateEntry {
  readonly key: number;
  readonly tie: number;
  readonly id: string;
}

class MemoryQueue {
  record: QueueRecord;
  nextSeq = 1;
  readonly messages = new Map<number, Slot>();
  readonly ready = new OrderedQueue<Slot>();
  readonly waiting = new OrderedQueue<MessageEntry>();
  readonly expiring = new OrderedQueue<MessageEntry>();
  readonly counts: StateCounts = { ready: 0, delayed: 0, locked: 0 };
  readonly groups = new Map<string, Group>();
  readonly available = new OrderedQueue<GroupEntry>();
  readonly groupLocks = new OrderedQueue<GroupEntry>();
  readonly duplicates = new Map<string, DuplicateRecord>();
  readonly duplicateOrder = new OrderedQueue<DuplicateEntry>();
  duplicateTie = 0;

  constructor(record: QueueRecord) {
    this.record = record;
  }
}

function lockFields(message: MessageLock): Partial<MessageRecord> {
  const { state, visibleAt, lockToken, deliveryCount, firstDeliveredAt, deliveredAt } = message;
  return { state, visibleAt, lockToken, deliveryCount, firstDeliveredAt, deliveredAt };
}

const current = (entry: MessageEntry): boolean => entry.slot.version === entry.version;

function readyVerdict(slot: Slot): Verdict {
  if (slot.state === "ready" && slot.version >= 0) return "take";
  slot.inReady = false;
  return "drop";
}
const isReady = (slot: Slot): boolean => readyVerdict(slot) === "take";

/** Everything a memory store holds of one queue, as a journal's snapshot writes it. */
export interface QueueContents {
  readonly record: QueueRecord;
  /** The sequence number the next message will get. */
  readonly nextSeq: number;
  /** Stored messages, lowest sequence first. */
  readonly messages: readonly MessageRecord[];
  readonly groups: readonly GroupRecord[];
  readonly duplicates: ReadonlyMap<string, DuplicateRecord>;
}

/** The engine's storage in process memory: maps for records, ordered queues for every index. */
export class MemoryStore implements QueueStore {
  readonly #queues = new Map<string, MemoryQueue>();
  readonly #topics = new Map<string, TopicRecord>();
  /** Each topic's subscriptions, by name. */
  readonly #subscriptions = new Map<string, Map<string, SubscriptionRecord>>();
  #closed = false;

  transaction<T>(fn: () => T): T {
    if (this.#closed) throw new QueueError("ClientClosed", "the memory store has been closed");
    return fn();
  }

  close(): void {
    this.#closed = true;
    this.#queues.clear();
    this.#topics.clear();
    this.#subscriptions.clear();
  }

  getQueue(name: string): QueueRecord | undefined {
    return this.#queues.get(name)?.record;
  }

  listQueues(): QueueRecord[] {
    return [...this.#queues.values()].map((queue) => queue.record).sort(byName);
  }

  putQueue(record: QueueRecord): void {
    const existing = this.#queues.get(record.name);
    if (existing) existing.record = record;
    else this.#queues.set(record.name, new MemoryQueue(record));
  }

  deleteQueue(name: string): void {
    this.#queues.delete(name);
  }

  getTopic(name: string): TopicRecord | undefined {
    return this.#topics.get(name);
  }

  listTopics(): TopicRecord[] {
    return [...this.#topics.values()].sort(byName);
  }

  putTopic(topic: TopicRecord): void {
    this.#topics.set(topic.name, topic);
  }

  deleteTopic(name: string): void {
    this.#topics.delete(name);
    this.#subscriptions.delete(name);
  }

  listSubscriptions(topic: string): SubscriptionRecord[] {
    return [...(this.#subscriptions.get(topic)?.values() ?? [])].sort(byName);
  }

  putSubscription(subscription: SubscriptionRecord): void {
    const ofTopic = this.#subscriptions.get(subscription.topic) ?? new Map<string, SubscriptionRecord>();
    ofTopic.set(subscription.name, subscription);
    this.#subscriptions.set(subscription.topic, ofTopic);
  }

  deleteSubscription(topic: string, name: string): void {
    this.#subscriptions.get(topic)?.delete(name);
  }

  insertMessage(queue: string, message: MessageRecord): number {
    const q = this.#queue(queue);
    message.seq = q.nextSeq++;
    this.#add(q, message);
    return message.seq;
  }

  /** Stores a message under the sequence number it already has (replaying a journal); later ones number after it. */
  restoreMessage(queue: string, message: MessageRecord): void {
    const q = this.#queue(queue);
    if (q.messages.has(message.seq))
      throw new QueueError("Validation", `message ${message.seq} of ${queue} is already stored`);
    q.nextSeq = Math.max(q.nextSeq, message.seq + 1);
    this.#add(q, message);
  }

  // Files a message that has its sequence number under its queue, group and indexes.
  #add(q: MemoryQueue, message: MessageRecord): void {
    const group =
      q.record.fifo && message.sessionId !== undefined ? this.#group(q, message.sessionId) : undefined;
    const slot: Slot = {
      key: message.seq,
      tie: 0,
      record: message,
      version: 0,
      state: message.state,
      inReady: false,
      group,
    };
    q.messages.set(message.seq, slot);
    q.counts[message.state]++;
    if (group) group.messages++;
    this.#index(q, slot);
  }

  /** Makes the next message of a queue number at least `nextSeq`, so numbers keep rising across a snapshot. */
  raiseNextSeq(queue: string, nextSeq: number): void {
    const q = this.#queue(queue);
    q.nextSeq = Math.max(q.nextSeq, nextSeq);
  }

  /** What the store holds of a queue, or `undefined` when there is no such queue. */
  contents(queue: string): QueueContents | undefined {
    const q = this.#queues.get(queue);
    if (q === undefined) return undefined;
    return {
      record: q.record,
      nextSeq: q.nextSeq,
      messages: [...q.messages.values()].map((slot) => slot.record).sort((a, b) => a.seq - b.seq),
      groups: [...q.groups.values()].flatMap((group) => (group.record ? [group.record] : [])),
      duplicates: q.duplicates,
    };
  }

  getMessage(queue: string, seq: number): MessageRecord | undefined {
    return this.#queues.get(queue)?.messages.get(seq)?.record;
  }

  getLock(queue: string, seq: number): MessageLock | undefined {
    return this.getMessage(queue, seq);
  }

  updateMessage(queue: string, message: MessageLock): void {
    const q = this.#queue(queue);
    const slot = q.messages.get(message.seq);
    if (slot === undefined)
      throw new QueueError("MessageNotFound", `message ${message.seq} is not in ${queue}`);
    q.counts[slot.state]--;
    q.counts[message.state]++;
    const wasReady = slot.state === "ready";
    // The engine changes the stored record itself (getLock hands it out); any other object is copied in.
    if (message !== slot.record) Object.assign(slot.record, lockFields(message));
    slot.state = message.state;
    slot.version++;
    this.#index(q, slot);
    if (slot.group && wasReady && message.state !== "ready") this.#announceHead(q, slot.group);
  }

  updateAttributes(queue: string, seq: number, { attributes, properties }: EditableFields): void {
    const slot = this.#queue(queue).messages.get(seq);
    if (slot === undefined) throw new QueueError("MessageNotFound", `message ${seq} is not in ${queue}`);
    // A new record, not the old one changed: a record handed out before (a peek's) keeps what it showed.
    slot.record = { ...slot.record, attributes, properties };
  }

  deleteLocked(lock: LockReference, lockedAfter: number | undefined): string | null | undefined {
    const message = this.getLock(lock.queue, lock.seq);
    if (message === undefined || !holdsLock(message, lock.lockToken, lockedAfter)) return undefined;
    this.deleteMessage(lock.queue, lock.seq);
    return message.sessionId ?? null;
  }

  deleteMessage(queue: string, seq: number): void {
    const q = this.#queue(queue);
    const slot = q.messages.get(seq);
    if (slot === undefined) return;
    q.messages.delete(seq);
    q.counts[slot.state]--;
    slot.version = -1;
    const group = slot.group;
    if (group) {
      group.locked.delete(slot);
      group.messages--;
      if (slot.state === "ready") this.#announceHead(q, group);
      this.#forgetIfIdle(q, group);
    }
  }

  purgeMessages(queue: string): number {
    const q = this.#queue(queue);
    const count = q.messages.size;
    for (const slot of q.messages.values()) slot.version = -1;
    q.messages.clear();
    q.ready.clear();
    q.waiting.clear();
    q.expiring.clear();
    q.counts.ready = q.counts.delayed = q.counts.locked = 0;
    for (const group of [...q.groups.values()]) {
      group.ready.clear();
      group.locked.clear();
      group.messages = 0;
      this.#forgetIfIdle(q, group);
    }
    return count;
  }

  peekMessages(queue: string, fromSeq: number, limit: number): MessageRecord[] {
    const q = this.#queues.get(queue);
    if (q === undefined || limit <= 0) return [];
    // Messages are filed in sequence order (sent, or replayed from a journal in order), so the
    // map's own order is the queue's.
    const found: MessageRecord[] = [];
    for (const [seq, slot] of q.messages) {
      if (seq < fromSeq) continue;
      found.push(slot.record);
      if (found.length === limit) break;
    }
    return found;
  }

  readyMessages(queue: string, limit: number): MessageRecord[] {
    const q = this.#queues.get(queue);
    if (q === undefined) return [];
    return q.ready.take(limit, readyVerdict).map((slot) => slot.record);
  }

  readyInGroup(queue: string, sessionId: string, limit: number): MessageRecord[] {
    const group = this.#queues.get(queue)?.groups.get(sessionId);
    if (group === undefined) return [];
    return group.ready.take(limit, readyVerdict).map((slot) => slot.record);
  }

  lockedInGroup(queue: string, sessionId: string): MessageRecord[] {
    const group = this.#queues.get(queue)?.groups.get(sessionId);
    if (group === undefined) return [];
    return [...group.locked].map((slot) => slot.record).sort((a, b) => a.seq - b.seq);
  }

  availableGroups(queue: string, now: number, limit: number): string[] {
    const q = this.#queues.get(queue);
    if (q === undefined) return [];
    const seen = new Set<Group>();
    return q.available
      .take(limit, (entry) => {
        const group = entry.group;
        if (seen.has(group) || q.groups.get(group.sessionId) !== group) return "drop";
        if (this.#head(group)?.key !== entry.key) return "drop";
        seen.add(group);
        return (group.record?.lockedUntil ?? 0) > now ? "keep" : "take";
      })
      .map((entry) => entry.group.sessionId);
  }

  dueMessages(queue: string, now: number, limit: number): MessageRecord[] {
    const q = this.#queues.get(queue);
    if (q === undefined) return [];
    return q.waiting
      .take(limit, (entry) => (!current(entry) ? "drop" : entry.key > now ? "stop" : "take"))
      .map((entry) => entry.slot.record);
  }

  expiredMessages(queue: string, now: number, limit: number): MessageRecord[] {
    const q = this.#queues.get(queue);
    if (q === undefined) return [];
    return q.expiring
      .take(limit, (entry) => (!current(entry) ? "drop" : entry.key > now ? "stop" : "take"))
      .map((entry) => entry.slot.record);
  }

  nextWakeAt(queue: string, now: number): number | undefined {
    const q = this.#queues.get(queue);
    if (q === undefined) return undefined;
    const due = q.waiting.first(current)?.key;
    const unlock = q.groupLocks.first(
      (entry) => entry.key > now && entry.group.record?.lockedUntil === entry.key,
    )?.key;
    if (due === undefined) return unlock;
    return unlock === undefined ? due : Math.min(due, unlock);
  }

  countMessages(queue: string): StateCounts {
    const q = this.#queues.get(queue);
    return q === undefined ? { ready: 0, delayed: 0, locked: 0 } : { ...q.counts };
  }

  getGroup(queue: string, sessionId: string): GroupRecord | undefined {
    return this.#queues.get(queue)?.groups.get(sessionId)?.record;
  }

  putGroup(queue: string, record: GroupRecord): void {
    const q = this.#queue(queue);
    const group = this.#group(q, record.sessionId);
    group.record = record;
    if (record.lockedUntil > 0) q.groupLocks.push({ key: record.lockedUntil, tie: 0, group });
  }

  sessionLockedGroups(queue: string, now: number): string[] {
    const groups = this.#queues.get(queue)?.groups.values() ?? [];
    const held: string[] = [];
    for (const { record } of groups)
      if (record?.lockKind === "session" && record.lockedUntil > now) held.push(record.sessionId);
    return held;
  }

  deleteGroup(queue: string, sessionId: string): void {
    const q = this.#queue(queue);
    const group = q.groups.get(sessionId);
    if (group === undefined) return;
    group.record = undefined;
    this.#forgetIfIdle(q, group);
  }

  findDuplicate(queue: string, deduplicationId: string, now: number): DuplicateRecord | undefined {
    const q = this.#queues.get(queue);
    if (q === undefined) return undefined;
    this.#pruneDuplicates(q, now);
    const found = q.duplicates.get(deduplicationId);
    return found !== undefined && found.expiresAt > now ? found : undefined;
  }

  putDuplicate(queue: string, deduplicationId: string, record: DuplicateRecord): void {
    const q = this.#queue(queue);
    q.duplicates.set(deduplicationId, record);
    q.duplicateOrder.push({ key: record.expiresAt, tie: q.duplicateTie++, id: deduplicationId });
  }

  #queue(name: string): MemoryQueue {
    const q = this.#queues.get(name);
    if (q === undefined) throw new QueueError("QueueNotFound", `queue ${name} does not exist`);
    return q;
  }

  #group(q: MemoryQueue, sessionId: string): Group {
    let group = q.groups.get(sessionId);
    if (group === undefined) {
      group = {
        sessionId,
        record: undefined,
        ready: new OrderedQueue(),
        locked: new Set(),
        messages: 0,
        announcedHead: 0,
      };
      q.groups.set(sessionId, group);
    }
    return group;
  }

  // Files a message under the indexes of its current state.
  #index(q: MemoryQueue, slot: Slot): void {
    const record = slot.record;
    const group = slot.group;
    if (group) {
      if (record.state === "locked") group.locked.add(slot);
      else group.locked.delete(slot);
    }
    if (record.state === "ready") {
      if (!slot.inReady) {
        slot.inReady = true;
        (group ? group.ready : q.ready).push(slot);
      }
      if (group) this.#announceHead(q, group);
    } else {
      q.waiting.push({ key: record.visibleAt, tie: record.seq, slot, version: slot.version });
    }
    if (record.expiresAt !== null && record.state !== "locked")
      q.expiring.push({ key: record.expiresAt, tie: record.seq, slot, version: slot.version });
  }

  #head(group: Group): Slot | undefined {
    return group.ready.first(isReady);
  }

  // Queues an availability entry for the group's oldest ready message when it changed.
  #announceHead(q: MemoryQueue, group: Group): void {
    const head = this.#head(group);
    // With no ready head the last entry goes stale and is dropped, so the same head coming back
    // (its only message released by an abandon or an expired lock) must be announced again.
    if (head === undefined) {
      group.announcedHead = 0;
      return;
    }
    if (head.key === group.announcedHead) return;
    group.announcedHead = head.key;
    q.available.push({ key: head.key, tie: 0, group });
  }

  #forgetIfIdle(q: MemoryQueue, group: Group): void {
    if (group.messages === 0 && group.record === undefined) q.groups.delete(group.sessionId);
  }

  #pruneDuplicates(q: MemoryQueue, now: number): void {
    for (;;) {
      const oldest = q.duplicateOrder.peek();
      if (oldest === undefined || oldest.key > now) return;
      q.duplicateOrder.pop();
      if (q.duplicates.get(oldest.id)?.expiresAt === oldest.key) q.duplicates.delete(oldest.id);
    }
  }
}

/** Orders records by name. */
function byName(a: { readonly name: string }, b: { readonly name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}
