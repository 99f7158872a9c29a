import type { QueueInfo, QueueOptions } from "../core/admin.js";
import { QueueError } from "../core/errors.js";
import { validateCount, validateDuration, validateQueueName } from "../core/validation.js";
import { deadLetterQueueName, FIFO_SUFFIX } from "./dead-letters.js";
import { MAX_DURATION_MS, MAX_LOCK_MS, type QueueDefaults } from "./queue-defaults.js";

/** A queue's settings as a provider that keeps its own stores them. Durations in ms; `null` means "never". */
export interface QueueRecord {
  readonly name: string;
  /** Messages carry a session id and are delivered in order per session (message group). */
  readonly fifo: boolean;
  readonly lockDurationMs: number;
  readonly maxDeliveryCount: number | null;
  readonly deadLetterQueue: string | null;
  readonly defaultTimeToLiveMs: number | null;
  readonly deadLetterOnExpiration: boolean;
  readonly deduplicationWindowMs: number;
  readonly defaultDelayMs: number;
  readonly createdAt: number;
  /** Settings a protocol server keeps with the queue and the engine does not read (tags, policies). */
  readonly properties: Readonly<Record<string, string>>;
}

/**
 * The dead-letter queue of the queue `record` describes, as `deadLetterQueueOf` answers it on
 * every provider: `QueueNotFound` for no queue, `Unsupported` for one without a dead-letter queue
 * (where `deadLetterMessage` fails the same way).
 */
export function deadLetterQueueOfRecord(name: string, record: QueueRecord | undefined): string {
  if (record === undefined) throw new QueueError("QueueNotFound", `queue ${name} does not exist`);
  if (record.deadLetterQueue === null)
    throw new QueueError("Unsupported", `queue ${name} has no dead-letter queue`);
  return record.deadLetterQueue;
}

/** A queue record from options, queue defaults filling the gaps; bad options fail with `Validation`. */
export function queueRecord(
  name: string,
  options: QueueOptions & { properties?: Record<string, string> },
  defaults: QueueDefaults,
  now: number,
): QueueRecord {
  validateQueueName(name);
  if (
    options.fifo !== undefined &&
    options.requiresSession !== undefined &&
    options.fifo !== options.requiresSession
  )
    throw new QueueError("Validation", "fifo and requiresSession mean the same thing and must agree");
  const fifo = options.fifo ?? options.requiresSession ?? name.endsWith(FIFO_SUFFIX);
  const deadLetterQueue =
    options.deadLetterQueue === undefined ? deadLetterQueueName(name) : options.deadLetterQueue;
  if (deadLetterQueue !== null) {
    validateQueueName(deadLetterQueue);
    if (deadLetterQueue === name)
      throw new QueueError("Validation", "a queue cannot be its own dead-letter queue");
  }
  const maxDeliveryCount =
    options.maxDeliveryCount === undefined ? defaults.maxDeliveryCount : options.maxDeliveryCount;
  const defaultTimeToLiveMs =
    options.defaultTimeToLiveMs === undefined ? defaults.defaultTimeToLiveMs : options.defaultTimeToLiveMs;
  return {
    name,
    fifo: Boolean(fifo),
    lockDurationMs: validateDuration(
      "lockDurationMs",
      options.lockDurationMs ?? defaults.lockDurationMs,
      0,
      MAX_LOCK_MS,
    ),
    maxDeliveryCount:
      maxDeliveryCount === null ? null : validateCount("maxDeliveryCount", maxDeliveryCount, 1, 1_000_000),
    deadLetterQueue,
    defaultTimeToLiveMs:
      defaultTimeToLiveMs === null
        ? null
        : validateDuration("defaultTimeToLiveMs", defaultTimeToLiveMs, 1, MAX_DURATION_MS),
    deadLetterOnExpiration: options.deadLetterOnExpiration ?? true,
    deduplicationWindowMs: validateDuration(
      "deduplicationWindowMs",
      options.deduplicationWindowMs ?? defaults.deduplicationWindowMs,
      0,
      MAX_DURATION_MS,
    ),
    defaultDelayMs: validateDuration("defaultDelayMs", options.defaultDelayMs ?? 0, 0, MAX_DURATION_MS),
    createdAt: now,
    properties: { ...options.properties },
  };
}

/** The record of a dead-letter queue created for `source`: same kind, never dead-letters, never expires. */
export function deadLetterQueueRecord(name: string, source: QueueRecord, now: number): QueueRecord {
  return {
    name,
    fifo: source.fifo,
    lockDurationMs: source.lockDurationMs,
    maxDeliveryCount: null,
    deadLetterQueue: null,
    defaultTimeToLiveMs: null,
    deadLetterOnExpiration: false,
    deduplicationWindowMs: 0,
    defaultDelayMs: 0,
    createdAt: now,
    properties: {},
  };
}

/** What `admin.getQueue` shows of a queue record. */
export function queueInfo(record: QueueRecord): QueueInfo {
  return {
    name: record.name,
    fifo: record.fifo,
    lockDurationMs: record.lockDurationMs,
    maxDeliveryCount: record.maxDeliveryCount,
    deadLetterQueue: record.deadLetterQueue,
    defaultTimeToLiveMs: record.defaultTimeToLiveMs,
    deadLetterOnExpiration: record.deadLetterOnExpiration,
    deduplicationWindowMs: record.deduplicationWindowMs,
    defaultDelayMs: record.defaultDelayMs,
    createdAt: new Date(record.createdAt),
  };
}
