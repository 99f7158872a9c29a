import type { QueueRecord } from "../rules/queue-records.js";
import type { SubscriptionRecord, TopicRecord } from "../rules/topic-records.js";
import type {
  DuplicateRecord,
  EditableFields,
  GroupRecord,
  LockReference,
  MessageLock,
  MessageRecord,
  StateCounts,
} from "./records.js";

/**
 * The storage behind the queue engine. The engine decides every state change; a store keeps
 * records and answers the indexed questions the engine asks, each at a cost that does not grow
 * with the number of messages queued. Calls are synchronous: a store is in memory or an
 * embedded database, and a transaction must not interleave with another caller's.
 */
export interface QueueStore {
  /** Runs `fn` as one atomic step: all its writes happen or none do, and no other writer runs meanwhile. Nested calls join the outer one. */
  transaction<T>(fn: () => T): T;
  /** Releases the store; later calls fail. A store with background work resolves once it has let go of its files. */
  close(): void | Promise<void>;

  /**
   * A queue, or `undefined` when none has that name. Also called outside a transaction, where a
   * store may answer from a copy a moment old (another process's change is seen shortly after).
   */
  getQueue(name: string): QueueRecord | undefined;
  /** Every queue, sorted by name. */
  listQueues(): QueueRecord[];
  /** Adds a queue or replaces its settings. */
  putQueue(queue: QueueRecord): void;
  /** Removes a queue with its messages, groups and deduplication records. */
  deleteQueue(name: string): void;

  /** A topic, or `undefined` when none has that name (read outside a transaction as `getQueue` is). */
  getTopic(name: string): TopicRecord | undefined;
  /** Every topic, sorted by name. */
  listTopics(): TopicRecord[];
  /** Adds a topic or replaces it (its counter of published messages included). */
  putTopic(topic: TopicRecord): void;
  /** Removes a topic and its subscriptions' records (their queues are the engine's to delete). */
  deleteTopic(name: string): void;
  /** The subscriptions of a topic, sorted by name. */
  listSubscriptions(topic: string): SubscriptionRecord[];
  /** Adds a subscription or replaces it (its rules). */
  putSubscription(subscription: SubscriptionRecord): void;
  /** Removes a subscription's record. */
  deleteSubscription(topic: string, name: string): void;

  /** Stores a new message, giving it the next sequence number of its queue (set on `message.seq` and returned); `now` is the engine's time. */
  insertMessage(queue: string, message: MessageRecord, now: number): number;
  /** A message by its sequence number. */
  getMessage(queue: string, seq: number): MessageRecord | undefined;
  /** The lock and delivery fields of a message, without its body (what settling it needs). */
  getLock(queue: string, seq: number): MessageLock | undefined;
  /** Stores the new state, lock and delivery fields of a message already stored. */
  updateMessage(queue: string, message: MessageLock): void;
  /** Replaces the attributes and properties of a message already stored (its other fields stay). */
  updateAttributes(queue: string, seq: number, fields: EditableFields): void;
  /** Removes a message. */
  deleteMessage(queue: string, seq: number): void;
  /**
   * Removes a message if its lock still holds (see `holdsLock`): one step where the store
   * can check and delete at once. Returns its session id (`null` for none), or `undefined` when
   * the lock does not hold and nothing changed.
   */
  deleteLocked(lock: LockReference, lockedAfter: number | undefined): string | null | undefined;
  /** Removes every message of a queue; returns how many. */
  purgeMessages(queue: string): number;

  /** Up to `limit` messages of any state from sequence number `fromSeq` on, lowest first (a peek: nothing changes). */
  peekMessages(queue: string, fromSeq: number, limit: number): MessageRecord[];
  /** Up to `limit` ready messages of a standard queue, lowest sequence first. */
  readyMessages(queue: string, limit: number): MessageRecord[];
  /** Up to `limit` ready messages of one group, lowest sequence first. */
  readyInGroup(queue: string, sessionId: string, limit: number): MessageRecord[];
  /** The locked messages of one group. */
  lockedInGroup(queue: string, sessionId: string): MessageLock[];
  /** Up to `limit` groups with ready messages whose lock is free at `now`, the one with the oldest ready message first. */
  availableGroups(queue: string, now: number, limit: number): string[];
  /** Up to `limit` delayed or locked messages whose `visibleAt` has come, earliest first. */
  dueMessages(queue: string, now: number, limit: number): MessageLock[];
  /** Up to `limit` ready or delayed messages whose time to live has ended. */
  expiredMessages(queue: string, now: number, limit: number): MessageLock[];
  /** The earliest future moment something changes by itself: a delay or lock ends, or a group lock over ready messages ends. */
  nextWakeAt(queue: string, now: number): number | undefined;
  /** Counts by stored state (locks that ended but were not yet released still count as locked). */
  countMessages(queue: string): StateCounts;

  /** For stores other processes write too: whether any of them committed since this was last asked. */
  changedElsewhere?(): boolean;

  /** A group of a FIFO queue. */
  getGroup(queue: string, sessionId: string): GroupRecord | undefined;
  /** Adds or replaces a group. */
  putGroup(queue: string, group: GroupRecord): void;
  /** Removes a group record (its messages stay). */
  deleteGroup(queue: string, sessionId: string): void;
  /** The ids of the groups an accepted session holds past `now` (a lock of kind `session`). */
  sessionLockedGroups(queue: string, now: number): string[];

  /** The message a deduplication id was first sent as, while its window lasts. */
  findDuplicate(queue: string, deduplicationId: string, now: number): DuplicateRecord | undefined;
  /** Remembers a deduplication id until `record.expiresAt`. */
  putDuplicate(queue: string, deduplicationId: string, record: DuplicateRecord): void;
}
