import type { QueueInfo, QueueOptions } from "../core/admin.js";
import { QueueError } from "../core/errors.js";
import { validateCount, validateDuration, validateQueueName } from "../core/validation.js";
import type { QueueRecord } from "./records.js";

/** The engine's defaults for queues created without options of their own. */
export interface EngineDefaults {
  readonly lockDurationMs: number;
  readonly sessionLockDurationMs: number;
  readonly maxDeliveryCount: number | null;
  readonly defaultTimeToLiveMs: number | null;
  readonly deduplicationWindowMs: number;
}

/** 30 s locks, 60 s session locks, 10 deliveries, no time to live, a 5 minute deduplication window. */
export const ENGINE_DEFAULTS: EngineDefaults = Object.freeze({
  lockDurationMs: 30_000,
  sessionLockDurationMs: 60_000,
  maxDeliveryCount: 10,
  defaultTimeToLiveMs: null,
  deduplicationWindowMs: 300_000,
});

const MAX_LOCK_MS = 12 * 3_600_000;
const MAX_DURATION_MS = 100 * 365 * 24 * 3_600_000;
const FIFO_SUFFIX = ".fifo";

/** Engine defaults from partial ones, each checked. */
export function resolveEngineDefaults(options: Partial<EngineDefaults>): EngineDefaults {
  const pick = <K extends keyof EngineDefaults>(key: K): EngineDefaults[K] =>
    options[key] === undefined ? ENGINE_DEFAULTS[key] : (options[key] as EngineDefaults[K]);
  const maxDeliveryCount = pick("maxDeliveryCount");
  const defaultTimeToLiveMs = pick("defaultTimeToLiveMs");
  return {
    lockDurationMs: validateDuration("lockDurationMs", pick("lockDurationMs"), 1, MAX_LOCK_MS),
    sessionLockDurationMs: validateDuration(
      "sessionLockDurationMs",
      pick("sessionLockDurationMs"),
      1,
      MAX_LOCK_MS,
    ),
    maxDeliveryCount:
      maxDeliveryCount === null ? null : validateCount("maxDeliveryCount", maxDeliveryCount, 1, 1_000_000),
    defaultTimeToLiveMs:
      defaultTimeToLiveMs === null
        ? null
        : validateDuration("defaultTimeToLiveMs", defaultTimeToLiveMs, 1, MAX_DURATION_MS),
    deduplicationWindowMs: validateDuration(
      "deduplicationWindowMs",
      pick("deduplicationWindowMs"),
      0,
      MAX_DURATION_MS,
    ),
  };
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

/** The engine's name for a queue's dead-letter queue: `<name>-dlq`, with `.fifo` kept last. */
export function deadLetterQueueName(name: string): string {
  return name.endsWith(FIFO_SUFFIX)
    ? `${name.slice(0, -FIFO_SUFFIX.length)}-dlq${FIFO_SUFFIX}`
    : `${name}-dlq`;
}

/** A queue record from options, engine defaults filling the gaps; bad options fail with `Validation`. */
export function queueRecord(
  name: string,
  options: QueueOptions & { properties?: Record<string, string> },
  defaults: EngineDefaults,
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
