import { QueueError } from "../core/errors.js";
import type { QueueRecord } from "../rules/queue-records.js";
import type { EngineContext } from "./context.js";
import { deadLetterOrFail } from "./dead-letters.js";
import { release, releaseGroupIfIdle } from "./maintenance.js";
import {
  type FieldEdit,
  holdsLock,
  type LockReference,
  type MessageLock,
  type MessageRecord,
} from "./records.js";

/** How strictly a settlement checks its lock. */
export interface SettleOptions {
  /**
   * Accept a lock that has expired as long as the message was not received again since (SQS
   * lets the latest receipt of a standard queue delete its message after the visibility timeout).
   */
  allowExpired?: boolean;
}

/** The message a receipt's lock refers to, failing with `InvalidReceipt` when that lock is gone. */
export function lockedMessage(
  context: EngineContext,
  lock: LockReference,
  now: number,
  options: SettleOptions = {},
): { queue: QueueRecord; message: MessageLock } {
  const queue = context.store.getQueue(lock.queue);
  if (queue === undefined) throw new QueueError("InvalidReceipt", `queue ${lock.queue} no longer exists`);
  const message = context.store.getLock(lock.queue, lock.seq);
  if (message === undefined || !holdsLock(message, lock.lockToken, undefined))
    throw new QueueError(
      "InvalidReceipt",
      "this receipt's lock is gone: the message was settled or received again",
    );
  if (!holdsLock(message, lock.lockToken, options.allowExpired ? undefined : now))
    throw new QueueError("InvalidReceipt", "this receipt's lock has expired; the message is visible again", {
      providerCode: "MessageNotInflight",
    });
  return { queue, message };
}

/** Removes a locked message for good: checked and deleted in one step; read again only to say why it failed. */
export function complete(context: EngineContext, lock: LockReference, options?: SettleOptions): void {
  const { store } = context;
  store.transaction(() => {
    const now = context.clock.now();
    const queue = store.getQueue(lock.queue);
    const lockedAfter = options?.allowExpired ? undefined : now;
    const sessionId = queue === undefined ? undefined : store.deleteLocked(lock, lockedAfter);
    if (queue === undefined || sessionId === undefined) {
      lockedMessage(context, lock, now, options);
      throw new QueueError(
        "Provider",
        `the store refused lock ${lock.lockToken}, which the engine finds held`,
      );
    }
    releaseGroupIfIdle(context, queue, sessionId ?? undefined, now);
  });
}

/** Rewrites a message's attributes and properties with `edit`; nothing happens without one. */
export function editFields(
  context: EngineContext,
  queue: string,
  seq: number,
  edit: FieldEdit | undefined,
): void {
  if (edit === undefined) return;
  const stored = context.store.getMessage(queue, seq);
  if (stored === undefined) throw new QueueError("MessageNotFound", `message ${seq} is not in ${queue}`);
  context.store.updateAttributes(
    queue,
    seq,
    edit({ attributes: stored.attributes, properties: stored.properties }),
  );
}

/**
 * Releases a lock: the message is delivered again after `delayMs` (or dead-lettered when its
 * deliveries are used up), its fields first changed by `edit` when one is given.
 */
export function abandon(
  context: EngineContext,
  lock: LockReference,
  delayMs: number,
  edit?: FieldEdit,
): void {
  context.store.transaction(() => {
    const now = context.clock.now();
    const { queue, message } = lockedMessage(context, lock, now);
    editFields(context, queue.name, message.seq, edit);
    release(context, queue, message, now + delayMs, now);
  });
}

/**
 * Gives back a message a receiver was handed but never got (its connection went first): the
 * lock is released at once and the delivery is not counted.
 */
export function giveBack(context: EngineContext, lock: LockReference): void {
  context.store.transaction(() => {
    const now = context.clock.now();
    const { queue, message } = lockedMessage(context, lock, now);
    message.deliveryCount = Math.max(0, message.deliveryCount - 1);
    if (message.deliveryCount === 0) message.firstDeliveredAt = null;
    release(context, queue, message, now, now);
  });
}

/** Moves a locked message to the dead-letter queue with a reason, its fields changed by `edit` when one is given. */
export function deadLetter(
  context: EngineContext,
  lock: LockReference,
  reason: string,
  description: string | undefined,
  edit?: FieldEdit,
): void {
  context.store.transaction(() => {
    const now = context.clock.now();
    const { queue, message } = lockedMessage(context, lock, now);
    deadLetterOrFail(context, queue, message, reason, description, edit);
    releaseGroupIfIdle(context, queue, message.sessionId, now);
  });
}

/**
 * Sets a lock to end `durationMs` from now (the queue's lock duration by default); 0 releases the
 * message at once. Returns the message as now locked. Messages of an accepted session follow
 * its lock instead.
 */
export function extendLock(context: EngineContext, lock: LockReference, durationMs?: number): MessageLock {
  return context.store.transaction(() => {
    const now = context.clock.now();
    const { queue, message } = lockedMessage(context, lock, now);
    const group =
      queue.fifo && message.sessionId !== undefined
        ? context.store.getGroup(queue.name, message.sessionId)
        : undefined;
    if (group?.lockKind === "session")
      throw new QueueError(
        "Unsupported",
        "messages of an accepted session are locked by the session: renew the session lock",
      );
    if (durationMs === 0) {
      release(context, queue, message, now, now);
      return message;
    }
    message.visibleAt = now + (durationMs ?? queue.lockDurationMs);
    context.store.updateMessage(queue.name, message);
    if (group !== undefined && group.lockedUntil < message.visibleAt) {
      group.lockedUntil = message.visibleAt;
      context.store.putGroup(queue.name, group);
    }
    return message;
  });
}

/** Sets a lock to end `durationMs` from now and returns the whole message as now locked. */
export function relock(context: EngineContext, lock: LockReference, durationMs: number): MessageRecord {
  return context.store.transaction(() => {
    extendLock(context, lock, durationMs);
    return context.store.getMessage(lock.queue, lock.seq)!;
  });
}
