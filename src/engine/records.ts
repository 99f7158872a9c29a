/** Where a message stands: ready to be received, waiting for its delay to end, or locked by a receiver. */
export const MESSAGE_STATES = ["ready", "delayed", "locked"] as const;

/** The state of a stored message. */
export type MessageState = (typeof MESSAGE_STATES)[number];

/**
 * What locking and delivering a message change, and what deciding about them needs: the part of a
 * message that settlement and upkeep read (a store may read it without the body).
 */
export interface MessageLock {
  /** Increasing per queue; also the delivery order. Assigned by the store when the message is inserted. */
  seq: number;
  readonly sessionId: string | undefined;
  /** When the message's time to live ends, or `null`. */
  readonly expiresAt: number | null;
  state: MessageState;
  /** For `delayed`: when it becomes ready. For `locked`: when the lock ends. */
  visibleAt: number;
  /** The token of the latest lock (kept after it ends, until the next receive), or `null` before the first. */
  lockToken: string | null;
  deliveryCount: number;
  firstDeliveredAt: number | null;
  deliveredAt: number | null;
}

/** A reference to a lock: the queue, the message's sequence number and the lock token. */
export interface LockReference {
  readonly queue: string;
  readonly seq: number;
  readonly lockToken: string;
}

/**
 * Whether `lockToken` still holds a message's lock: it is the latest lock and, unless
 * `lockedAfter` is undefined, the message is locked past that time.
 */
export function holdsLock(message: MessageLock, lockToken: string, lockedAfter: number | undefined): boolean {
  return (
    message.lockToken === lockToken &&
    (lockedAfter === undefined || (message.state === "locked" && message.visibleAt > lockedAfter))
  );
}

/** A message as the engine stores it; instants in ms since the epoch. */
export interface MessageRecord extends MessageLock {
  readonly messageId: string;
  readonly body: Uint8Array;
  readonly attributes: Readonly<Record<string, string>> | undefined;
  readonly correlationId: string | undefined;
  readonly contentType: string | undefined;
  /** Fields a protocol server carries with the message and the engine does not read. */
  readonly properties: Readonly<Record<string, string>> | undefined;
  readonly enqueuedAt: number;
}

/** The fields of a message a settlement may rewrite besides its lock: its attributes and properties. */
export interface EditableFields {
  readonly attributes: Readonly<Record<string, string>> | undefined;
  readonly properties: Readonly<Record<string, string>> | undefined;
}

/**
 * A settlement's change to a message's fields (Service Bus's properties to modify): given them as
 * stored, returns them as they are to be. A function, because a protocol may keep several
 * properties in one stored value and must merge into what is there.
 */
export type FieldEdit = (stored: EditableFields) => EditableFields;

/** Why a group (session) is locked: by an accepted session, or by messages a plain receive took. */
export type GroupLockKind = "session" | "messages";

/** A session (message group) of a FIFO queue: its lock and its state. */
export interface GroupRecord {
  readonly sessionId: string;
  lockKind: GroupLockKind | null;
  lockToken: string | null;
  /** When the lock ends; 0 when unlocked. */
  lockedUntil: number;
  state: Uint8Array | null;
}

/** A remembered deduplication id: repeats within the window return the original message. */
export interface DuplicateRecord {
  readonly messageId: string;
  readonly seq: number;
  readonly expiresAt: number;
}

/** Counts of a queue's messages by stored state. */
export interface StateCounts {
  ready: number;
  delayed: number;
  locked: number;
}
