import type { Clock } from "../core/clock.js";
import type { UrlOptionNames } from "../core/queue-url.js";
import { validateCount, validateDuration } from "../core/validation.js";

/** The queue options a provider config may set (memory, sqlite, postgres, the brokers), in the provider object or as URL query parameters. */
export interface EngineProviderOptions {
  /** How long a receive locks a message (default 30 000). */
  lockDurationMs?: number;
  /** Deliveries before a message is dead-lettered (default 10); `null` never. */
  maxDeliveryCount?: number | null;
  /** How long an accepted session stays locked without renewal (default 60 000). */
  sessionLockDurationMs?: number;
  /** Time to live of messages sent without one (default: none). */
  defaultTimeToLiveMs?: number | null;
  /** Repeats of a deduplication id within this window are dropped (default 300 000). */
  deduplicationWindowMs?: number;
  /** The largest message accepted, body and attributes (default 1 MiB). */
  maxMessageBytes?: number;
  /** A virtual clock for tests. */
  clock?: Clock;
}

/** The defaults of queues created without options of their own, on every provider that keeps its own queue settings. */
export interface QueueDefaults {
  readonly lockDurationMs: number;
  readonly sessionLockDurationMs: number;
  readonly maxDeliveryCount: number | null;
  readonly defaultTimeToLiveMs: number | null;
  readonly deduplicationWindowMs: number;
}

/** 30 s locks, 60 s session locks, 10 deliveries, no time to live, a 5 minute deduplication window. */
export const QUEUE_DEFAULTS: QueueDefaults = Object.freeze({
  lockDurationMs: 30_000,
  sessionLockDurationMs: 60_000,
  maxDeliveryCount: 10,
  defaultTimeToLiveMs: null,
  deduplicationWindowMs: 300_000,
});

/** The longest lock any queue may have: 12 hours. */
export const MAX_LOCK_MS = 12 * 3_600_000;
/** The longest delay or time to live: a century. */
export const MAX_DURATION_MS = 100 * 365 * 24 * 3_600_000;

/** Queue defaults from partial ones, each checked. */
export function resolveQueueDefaults(options: Partial<QueueDefaults>): QueueDefaults {
  const pick = <K extends keyof QueueDefaults>(key: K): QueueDefaults[K] =>
    options[key] === undefined ? QUEUE_DEFAULTS[key] : (options[key] as QueueDefaults[K]);
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

/** The queue options a provider's URL takes as query parameters, where the provider honours them all. */
export const QUEUE_OPTION_NAMES = {
  numbers: [
    "lockDurationMs",
    "maxDeliveryCount",
    "sessionLockDurationMs",
    "defaultTimeToLiveMs",
    "deduplicationWindowMs",
    "maxMessageBytes",
  ],
} as const satisfies UrlOptionNames;
