import { DEAD_LETTER_REASONS } from "../rules/dead-letters.js";
import type { QueueRecord } from "../rules/queue-records.js";
import type { EngineContext } from "./context.js";
import { dropOrDeadLetter, moveToDeadLetter } from "./dead-letters.js";
import { DEFERRED_UNTIL, isDeferredLock } from "./deferral-marks.js";
import type { GroupRecord, MessageLock } from "./records.js";

/** The most due or expired messages one call handles, so a single receive never stalls on a backlog. */
const MAINTENANCE_LIMIT = 1_000;

/** True when a message has been delivered as often as its queue allows. */
export function deliveriesExhausted(queue: QueueRecord, message: MessageLock): boolean {
  return queue.maxDeliveryCount !== null && message.deliveryCount >= queue.maxDeliveryCount;
}

/**
 * Puts a message whose lock ended back in play: dead-lettered when its deliveries are used up,
 * dropped or dead-lettered when its time to live has ended, otherwise ready again (or delayed
 * until `visibleAt`). Releases its group when it was the last message holding it.
 */
export function release(
  context: EngineContext,
  queue: QueueRecord,
  message: MessageLock,
  visibleAt: number,
  now: number,
): void {
  // The last lock token stays with the message until it is received again (see SettleOptions.allowExpired).
  if (deliveriesExhausted(queue, message)) {
    if (moveToDeadLetter(context, queue, message, DEAD_LETTER_REASONS.maxDeliveryCount, undefined)) {
      releaseGroupIfIdle(context, queue, message.sessionId, now);
      return;
    }
  }
  if (message.expiresAt !== null && message.expiresAt <= now) {
    dropOrDeadLetter(context, queue, message, DEAD_LETTER_REASONS.expired);
  } else {
    // A deferred message taken by its sequence number goes back to deferral, not to the queue.
    const deferred = isDeferredLock(message.lockToken);
    message.state = deferred || visibleAt > now ? "delayed" : "ready";
    message.visibleAt = deferred ? DEFERRED_UNTIL : visibleAt;
    context.store.updateMessage(queue.name, message);
  }
  releaseGroupIfIdle(context, queue, message.sessionId, now);
  context.waiters.notify(queue.name);
}

/** Ends a group lock held by plain receives once none of its messages is locked any more. */
export function releaseGroupIfIdle(
  context: EngineContext,
  queue: QueueRecord,
  sessionId: string | undefined,
  now: number,
): void {
  if (!queue.fifo || sessionId === undefined) return;
  const { store } = context;
  const group = store.getGroup(queue.name, sessionId);
  if (group === undefined || group.lockKind !== "messages") return;
  const stillLocked = store
    .lockedInGroup(queue.name, sessionId)
    .some((message) => message.lockToken !== null && message.visibleAt > now);
  if (stillLocked) return;
  unlockGroup(context, queue, group);
}

/** Clears a group's lock, forgetting the group when it holds no state. */
export function unlockGroup(context: EngineContext, queue: QueueRecord, group: GroupRecord): void {
  group.lockKind = null;
  group.lockToken = null;
  group.lockedUntil = 0;
  if (group.state === null) context.store.deleteGroup(queue.name, group.sessionId);
  else context.store.putGroup(queue.name, group);
  context.waiters.notify(queue.name);
}

/**
 * Applies what time has done to the queues that dead-letter into `deadLetterQueue` (locks that
 * ended with their deliveries used up, time to live that ran out), so a read of a dead-letter
 * queue finds what moved there by itself even before its source queue was read again.
 */
export function maintainSourcesOf(context: EngineContext, deadLetterQueue: string, now: number): void {
  for (const source of context.store.listQueues())
    if (source.deadLetterQueue === deadLetterQueue && source.name !== deadLetterQueue)
      maintain(context, source, now);
}

/**
 * Applies what time has done to a queue: delays that ended make messages ready, locks that
 * ended release their messages, and messages whose time to live ended are dropped or
 * dead-lettered. Each pass handles a bounded number, oldest first.
 */
export function maintain(context: EngineContext, queue: QueueRecord, now: number): void {
  const { store } = context;
  for (const message of store.dueMessages(queue.name, now, MAINTENANCE_LIMIT)) {
    if (message.state === "delayed") {
      message.state = "ready";
      store.updateMessage(queue.name, message);
    } else {
      release(context, queue, message, now, now);
    }
  }
  for (const message of store.expiredMessages(queue.name, now, MAINTENANCE_LIMIT))
    dropOrDeadLetter(context, queue, message, DEAD_LETTER_REASONS.expired);
}
