import { QueueError } from "../core/errors.js";
import { DEAD_LETTER_ATTRIBUTES } from "../rules/dead-letters.js";
import type { QueueRecord } from "../rules/queue-records.js";
import { deadLetterQueueRecord } from "../rules/queue-records.js";
import type { EngineContext } from "./context.js";
import type { EditableFields, FieldEdit, MessageLock, MessageRecord } from "./records.js";

/** The dead-letter queue of `queue`, created like its source the first time it is needed. */
function deadLetterQueueFor(context: EngineContext, queue: QueueRecord): QueueRecord | undefined {
  if (queue.deadLetterQueue === null) return undefined;
  const existing = context.store.getQueue(queue.deadLetterQueue);
  if (existing !== undefined) return existing;
  const created = deadLetterQueueRecord(queue.deadLetterQueue, queue, context.clock.now());
  context.store.putQueue(created);
  return created;
}

/**
 * Moves a message to its queue's dead-letter queue, keeping its id, body and attributes (changed
 * by `edit` when one is given) and adding the reason; `false` when the queue has no dead-letter
 * queue (the message is untouched).
 */
export function moveToDeadLetter(
  context: EngineContext,
  queue: QueueRecord,
  lock: MessageLock,
  reason: string,
  description: string | undefined,
  edit?: FieldEdit,
): boolean {
  const target = deadLetterQueueFor(context, queue);
  if (target === undefined) return false;
  const message = context.store.getMessage(queue.name, lock.seq);
  if (message === undefined) return false;
  // The dead letter is a new record, so the edit is applied to it rather than stored first.
  const fields =
    edit === undefined ? message : edit({ attributes: message.attributes, properties: message.properties });
  const attributes: Record<string, string> = {
    ...fields.attributes,
    [DEAD_LETTER_ATTRIBUTES.reason]: reason,
    [DEAD_LETTER_ATTRIBUTES.sourceQueue]: queue.name,
  };
  if (description !== undefined) attributes[DEAD_LETTER_ATTRIBUTES.description] = description;
  else delete attributes[DEAD_LETTER_ATTRIBUTES.description];
  transfer(context, queue, target, message, attributes, fields.properties);
  return true;
}

/** Dead-letters a message or, when its queue has no dead-letter queue, deletes it (for expiry). */
export function dropOrDeadLetter(
  context: EngineContext,
  queue: QueueRecord,
  message: MessageLock,
  reason: string,
): void {
  const moved = queue.deadLetterOnExpiration && moveToDeadLetter(context, queue, message, reason, undefined);
  if (!moved) context.store.deleteMessage(queue.name, message.seq);
}

/** Dead-letters a message asked for explicitly; without a dead-letter queue it fails with `Unsupported`. */
export function deadLetterOrFail(
  context: EngineContext,
  queue: QueueRecord,
  message: MessageLock,
  reason: string,
  description: string | undefined,
  edit?: FieldEdit,
): void {
  if (!moveToDeadLetter(context, queue, message, reason, description, edit))
    throw new QueueError(
      "Unsupported",
      `queue ${queue.name} has no dead-letter queue; the message stays locked`,
    );
}

/** How a redrive moves messages. */
export interface RedriveOptions {
  /** Where to move them; by default each message's source queue. */
  target?: string | undefined;
  /** Move at most this many. */
  limit?: number | undefined;
}

const REDRIVE_CHUNK = 500;

/** Takes up to `limit` ready messages of a queue in order, whatever its kind. */
function readyOf(context: EngineContext, queue: QueueRecord, limit: number): MessageRecord[] {
  const { store } = context;
  if (!queue.fifo) return store.readyMessages(queue.name, limit);
  const taken: MessageRecord[] = [];
  for (const sessionId of store.availableGroups(queue.name, context.clock.now(), limit)) {
    taken.push(...store.readyInGroup(queue.name, sessionId, limit - taken.length));
    if (taken.length >= limit) break;
  }
  return taken;
}

/**
 * Moves ready messages of a dead-letter queue back, chunk by chunk (each chunk one transaction),
 * with their dead-letter attributes removed and their delivery count starting over. Messages
 * whose source queue no longer exists stay. Resolves how many moved.
 */
export function redrive(
  context: EngineContext,
  deadLetterQueue: string,
  options: RedriveOptions = {},
): number {
  const { store } = context;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  let moved = 0;
  let stuck = 0;
  for (;;) {
    const movedNow = store.transaction(() => {
      const source = store.getQueue(deadLetterQueue);
      if (source === undefined)
        throw new QueueError("QueueNotFound", `queue ${deadLetterQueue} does not exist`);
      if (options.target !== undefined && store.getQueue(options.target) === undefined)
        throw new QueueError("QueueNotFound", `queue ${options.target} does not exist`);
      const want = Math.min(REDRIVE_CHUNK, limit - moved);
      let count = 0;
      const batch = readyOf(context, source, stuck + want);
      stuck = 0;
      for (const message of batch) {
        if (count >= want) break;
        const targetName = options.target ?? message.attributes?.[DEAD_LETTER_ATTRIBUTES.sourceQueue];
        const target = targetName === undefined ? undefined : store.getQueue(targetName);
        if (target === undefined || target.name === source.name) {
          stuck++;
          continue;
        }
        moveBack(context, source, target, message);
        count++;
      }
      return count;
    });
    moved += movedNow;
    if (movedNow === 0 || moved >= limit) return moved;
  }
}

function moveBack(context: EngineContext, from: QueueRecord, to: QueueRecord, message: MessageRecord): void {
  const attributes = { ...message.attributes };
  delete attributes[DEAD_LETTER_ATTRIBUTES.reason];
  delete attributes[DEAD_LETTER_ATTRIBUTES.description];
  delete attributes[DEAD_LETTER_ATTRIBUTES.sourceQueue];
  transfer(context, from, to, message, attributes, message.properties);
}

/**
 * Moves a message to another queue as a fresh delivery: same id and body, the given attributes
 * and properties, a new sequence number there, no lock, no time to live, its delivery count
 * starting over.
 */
function transfer(
  context: EngineContext,
  from: QueueRecord,
  to: QueueRecord,
  message: MessageRecord,
  attributes: Record<string, string>,
  properties: EditableFields["properties"],
): void {
  const { store } = context;
  const now = context.clock.now();
  store.deleteMessage(from.name, message.seq);
  store.insertMessage(
    to.name,
    {
      ...message,
      seq: 0,
      attributes,
      properties,
      // A FIFO queue needs a session: a message from a standard queue joins one named after its source.
      sessionId: to.fifo ? (message.sessionId ?? from.name) : message.sessionId,
      expiresAt: null,
      state: "ready",
      visibleAt: now,
      lockToken: null,
      deliveryCount: 0,
      firstDeliveredAt: null,
      deliveredAt: null,
    },
    now,
  );
  context.waiters.notify(to.name);
}
