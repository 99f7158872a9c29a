import { QueueError } from "../core/errors.js";
import type { OutgoingMessage } from "../core/provider.js";
import { DEAD_LETTER_REASONS } from "../rules/dead-letters.js";
import { newMessageId } from "../rules/message-ids.js";
import type { QueueRecord } from "../rules/queue-records.js";
import { type EngineContext, queueToReceiveFrom, queueToSendTo } from "./context.js";
import { dropOrDeadLetter, moveToDeadLetter } from "./dead-letters.js";
import { deliveriesExhausted, maintain, maintainSourcesOf } from "./maintenance.js";
import type { MessageRecord } from "./records.js";

/** The outcome of one sent message: its id and sequence number, or why it was refused. */
export type SendOutcome =
  | { readonly ok: true; readonly messageId: string; readonly seq: number; readonly duplicate: boolean }
  | { readonly ok: false; readonly error: QueueError };

/**
 * A message as the engine takes it: an outgoing message and protocol fields to carry along, and
 * the system properties a protocol has beyond the library's, which subscription filters read.
 */
export type EngineMessage = OutgoingMessage & {
  readonly properties?: Readonly<Record<string, string>> | undefined;
  readonly subject?: string | undefined;
  readonly to?: string | undefined;
  readonly replyTo?: string | undefined;
};

/** Stores messages in one step; each gets its outcome, in order. Repeats of a deduplication id answer the original. */
export function send(
  context: EngineContext,
  queueName: string,
  messages: readonly EngineMessage[],
): SendOutcome[] {
  const { store } = context;
  return store.transaction(() => {
    const queue = queueToSendTo(context, queueName);
    const now = context.clock.now();
    const outcomes: SendOutcome[] = [];
    for (const message of messages) {
      if (queue.fifo && message.sessionId === undefined) {
        outcomes.push({ ok: false, error: missingSession(queue) });
        continue;
      }
      const deduplicationId = queue.deduplicationWindowMs > 0 ? message.deduplicationId : undefined;
      if (deduplicationId !== undefined) {
        const original = store.findDuplicate(queue.name, deduplicationId, now);
        if (original !== undefined) {
          outcomes.push({ ok: true, messageId: original.messageId, seq: original.seq, duplicate: true });
          continue;
        }
      }
      const record = newRecord(queue, message, now);
      store.insertMessage(queue.name, record, now);
      if (deduplicationId !== undefined)
        store.putDuplicate(queue.name, deduplicationId, {
          messageId: record.messageId,
          seq: record.seq,
          expiresAt: now + queue.deduplicationWindowMs,
        });
      outcomes.push({ ok: true, messageId: record.messageId, seq: record.seq, duplicate: false });
    }
    context.waiters.notify(queue.name);
    return outcomes;
  });
}

function missingSession(queue: QueueRecord): QueueError {
  return new QueueError("Validation", `queue ${queue.name} is a FIFO queue: every message needs a sessionId`);
}

function newRecord(queue: QueueRecord, message: EngineMessage, now: number): MessageRecord {
  const delayMs = message.delayMs ?? queue.defaultDelayMs;
  const timeToLiveMs = message.timeToLiveMs ?? queue.defaultTimeToLiveMs;
  const visibleAt = now + delayMs;
  return {
    seq: 0,
    messageId: message.messageId ?? newMessageId(),
    body: message.body,
    attributes: message.attributes,
    sessionId: message.sessionId,
    correlationId: message.correlationId,
    contentType: message.contentType,
    properties: message.properties,
    enqueuedAt: now,
    expiresAt: timeToLiveMs === null ? null : now + timeToLiveMs,
    state: delayMs > 0 ? "delayed" : "ready",
    visibleAt,
    lockToken: null,
    deliveryCount: 0,
    firstDeliveredAt: null,
    deliveredAt: null,
  };
}

/**
 * Locks a ready message for a receiver until `lockedUntil`, unless its deliveries are used up or
 * its time to live has ended (then it is dead-lettered or dropped and `false` is returned).
 */
export function lockForDelivery(
  context: EngineContext,
  queue: QueueRecord,
  message: MessageRecord,
  lockedUntil: number,
  now: number,
): boolean {
  if (message.expiresAt !== null && message.expiresAt <= now) {
    dropOrDeadLetter(context, queue, message, DEAD_LETTER_REASONS.expired);
    return false;
  }
  if (deliveriesExhausted(queue, message)) {
    if (moveToDeadLetter(context, queue, message, DEAD_LETTER_REASONS.maxDeliveryCount, undefined))
      return false;
  }
  message.state = "locked";
  message.lockToken = context.newToken();
  message.visibleAt = lockedUntil;
  message.deliveryCount++;
  message.firstDeliveredAt ??= now;
  message.deliveredAt = now;
  context.store.updateMessage(queue.name, message);
  return true;
}

/** One attempt to receive up to `max` messages from a queue; on a FIFO queue, whole groups at a time. */
export function receive(
  context: EngineContext,
  queueName: string,
  max: number,
  lockDurationMs?: number,
): MessageRecord[] {
  const { store } = context;
  return store.transaction(() => {
    const queue = queueToReceiveFrom(context, queueName);
    if (queue === undefined) return [];
    const now = context.clock.now();
    maintain(context, queue, now);
    const lockedUntil = now + (lockDurationMs ?? queue.lockDurationMs);
    const received: MessageRecord[] = [];
    lockReady(context, queue, max, lockedUntil, now, received);
    // A dead-letter queue that had nothing may have dead letters its sources have not moved yet;
    // looked for only then, so the receives of a busy queue never read the list of queues.
    if (received.length === 0 && !queue.fifo) {
      maintainSourcesOf(context, queue.name, now);
      lockReady(context, queue, max, lockedUntil, now, received);
    }
    return received;
  });
}

/** Locks up to `max` ready messages of `queue` for delivery, adding them to `received`. */
function lockReady(
  context: EngineContext,
  queue: QueueRecord,
  max: number,
  lockedUntil: number,
  now: number,
  received: MessageRecord[],
): void {
  for (let round = 0; round < 4 && received.length < max; round++) {
    const before = received.length;
    if (queue.fifo) receiveGroups(context, queue, max, lockedUntil, now, received);
    else
      for (const message of context.store.readyMessages(queue.name, max - received.length))
        if (lockForDelivery(context, queue, message, lockedUntil, now)) received.push(message);
    if (received.length === before) break;
  }
}

// A FIFO queue delivers a group's messages in order and holds the group until they are settled.
function receiveGroups(
  context: EngineContext,
  queue: QueueRecord,
  max: number,
  lockedUntil: number,
  now: number,
  received: MessageRecord[],
): void {
  const { store } = context;
  for (const sessionId of store.availableGroups(queue.name, now, max - received.length)) {
    let taken = 0;
    for (const message of store.readyInGroup(queue.name, sessionId, max - received.length)) {
      if (!lockForDelivery(context, queue, message, lockedUntil, now)) continue;
      received.push(message);
      taken++;
    }
    if (taken > 0) {
      const group = store.getGroup(queue.name, sessionId);
      store.putGroup(queue.name, {
        sessionId,
        lockKind: "messages",
        lockToken: null,
        lockedUntil: Math.max(lockedUntil, group?.lockedUntil ?? 0),
        state: group?.state ?? null,
      });
    }
    if (received.length >= max) break;
  }
}
