import { QueueError } from "../core/errors.js";
import { type EngineContext, existingQueue } from "./context.js";
import { DEFERRED_UNTIL, deferredLockToken, isDeferred } from "./deferral-marks.js";
import { lockForDelivery } from "./delivery.js";
import { releaseGroupIfIdle } from "./maintenance.js";
import type { FieldEdit, LockReference, MessageRecord } from "./records.js";
import { editFields, lockedMessage } from "./settlement.js";

/**
 * Sets a locked message aside (Service Bus's defer): no receive takes it until it is asked for by
 * its sequence number. Its fields are changed by `edit` when one is given.
 */
export function defer(context: EngineContext, lock: LockReference, edit?: FieldEdit): void {
  context.store.transaction(() => {
    const now = context.clock.now();
    const { queue, message } = lockedMessage(context, lock, now);
    editFields(context, queue.name, message.seq, edit);
    message.state = "delayed";
    message.visibleAt = DEFERRED_UNTIL;
    context.store.updateMessage(queue.name, message);
    releaseGroupIfIdle(context, queue, message.sessionId, now);
  });
}

/**
 * Locks the deferred messages with these sequence numbers, in the order asked, each for the
 * queue's lock duration (or `lockDurationMs`). A number that is not a deferred message of the
 * queue fails the whole call with `MessageNotFound`, naming it, and locks nothing.
 */
export function receiveDeferred(
  context: EngineContext,
  queueName: string,
  seqs: readonly number[],
  lockDurationMs?: number,
): MessageRecord[] {
  return context.store.transaction(() => {
    const queue = existingQueue(context, queueName);
    const messages = seqs.map((seq) => {
      const message = context.store.getMessage(queue.name, seq);
      if (message === undefined || !isDeferred(message))
        throw new QueueError("MessageNotFound", `queue ${queue.name} has no deferred message ${seq}`);
      return message;
    });
    const now = context.clock.now();
    const lockedUntil = now + (lockDurationMs ?? queue.lockDurationMs);
    const locked: MessageRecord[] = [];
    for (const message of messages) {
      if (!lockForDelivery(context, queue, message, lockedUntil, now)) continue;
      message.lockToken = deferredLockToken(message.lockToken!);
      context.store.updateMessage(queue.name, message);
      locked.push(message);
    }
    return locked;
  });
}

/**
 * Removes messages sent with a delay that have not been delivered yet (Service Bus's cancel of
 * a scheduled message); resolves how many went. Other numbers are passed over.
 */
export function cancelScheduled(context: EngineContext, queueName: string, seqs: readonly number[]): number {
  return context.store.transaction(() => {
    const queue = existingQueue(context, queueName);
    let cancelled = 0;
    for (const seq of seqs) {
      const message = context.store.getLock(queue.name, seq);
      if (
        message === undefined ||
        message.state !== "delayed" ||
        message.deliveryCount > 0 ||
        isDeferred(message)
      )
        continue;
      context.store.deleteMessage(queue.name, seq);
      cancelled++;
    }
    return cancelled;
  });
}
