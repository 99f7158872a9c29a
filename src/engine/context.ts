import { randomBytes } from "node:crypto";
import type { Clock } from "../core/clock.js";
import { QueueError } from "../core/errors.js";
import type { Waiters } from "../core/waiters.js";
import type { QueueDefaults } from "../rules/queue-defaults.js";
import type { QueueRecord } from "../rules/queue-records.js";
import { deadLetterQueueRecord, queueRecord } from "../rules/queue-records.js";
import type { QueueStore } from "./store.js";

/** What every engine operation works with. */
export interface EngineContext {
  readonly store: QueueStore;
  readonly clock: Clock;
  readonly defaults: QueueDefaults;
  readonly waiters: Waiters;
  /** Whether a queue is created on first use instead of failing with `QueueNotFound`. */
  readonly createQueues: boolean;
  /** A new lock token, unique across processes sharing a store. */
  newToken(): string;
}

/** Lock tokens: a random prefix per engine and a counter, cheaper than a UUID per lock. */
export function tokenSource(): () => string {
  const prefix = randomBytes(9).toString("base64url");
  let counter = 0;
  return () => `${prefix}${(counter++).toString(36)}`;
}

/** The queue a send goes to: made on first use when the engine creates queues. */
export function queueToSendTo(context: EngineContext, name: string): QueueRecord {
  const found = context.store.getQueue(name);
  if (found !== undefined) return found;
  if (!context.createQueues) throw queueNotFound(name);
  const created = queueRecord(name, {}, context.defaults, context.clock.now());
  storeNewQueue(context, created);
  return created;
}

/**
 * Stores a new queue and, when it names a dead-letter queue that does not exist yet, that queue
 * too: what a queue's settings point at exists from the start (an SQS client reading its
 * RedrivePolicy finds the queue it names).
 */
export function storeNewQueue(context: EngineContext, record: QueueRecord): void {
  context.store.putQueue(record);
  const deadLetterQueue = record.deadLetterQueue;
  if (deadLetterQueue !== null && context.store.getQueue(deadLetterQueue) === undefined)
    context.store.putQueue(deadLetterQueueRecord(deadLetterQueue, record, record.createdAt));
}

/**
 * The queue a receive reads: `undefined` when it does not exist yet but a send would make it
 * (the receive finds nothing and waits for that send); `QueueNotFound` when nothing would.
 * Reads never create queues.
 */
export function queueToReceiveFrom(context: EngineContext, name: string): QueueRecord | undefined {
  const found = context.store.getQueue(name);
  if (found === undefined && !context.createQueues) throw queueNotFound(name);
  return found;
}

/** A queue that exists; `QueueNotFound` otherwise. */
export function existingQueue(context: EngineContext, name: string): QueueRecord {
  const found = context.store.getQueue(name);
  if (found === undefined) throw queueNotFound(name);
  return found;
}

function queueNotFound(name: string): QueueError {
  return new QueueError("QueueNotFound", `queue ${name} does not exist`);
}
