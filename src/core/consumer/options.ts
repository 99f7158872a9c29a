import { QueueError } from "../errors.js";
import { backoffDelay, type RetryPolicy } from "../retry.js";
import type { StandardSchemaV1 } from "../standard-schema.js";
import { MAX_RECEIVE_COUNT, MAX_WAIT_MS } from "../validation.js";

/** How long the abandon after a failed handler waits, by the message's delivery count. */
export interface RetryDelays {
  /** The delay after the first delivery failed (default 1 000). */
  initialDelayMs: number;
  /** The longest delay (default 60 000; never more than the provider's `maxDelayMs`). */
  maxDelayMs: number;
  /** Each delivery's delay is this many times the one before (default 2). */
  multiplier: number;
  /** Spreads each delay at random between half and all of it (default true). */
  jitter: boolean;
}

/** At most `max` handler starts in any `perMs` window, per consumer. */
export interface RateLimit {
  max: number;
  perMs: number;
}

/** Options of `client.consume()`. */
export interface ConsumeOptions<Schema extends StandardSchemaV1 = StandardSchemaV1> {
  /** Handlers running at once (default 1). */
  concurrency?: number;
  /** Messages received ahead of a free handler (default: `concurrency`). */
  prefetch?: number;
  /** Keep renewing the lock of a held message up to this long after it was received (default 300 000; 0: never). */
  maxLockRenewalMs?: number;
  /** Then `context.signal` aborts and the message is abandoned (default: none). */
  handlerTimeoutMs?: number;
  /** The delay of the abandon after a handler failed, by delivery count. */
  retry?: Partial<RetryDelays>;
  /** At most this many handler starts per window (default: none). */
  rateLimit?: RateLimit;
  /** A Standard Schema (zod, valibot, ArkType, ...) the JSON body must pass before the handler runs. */
  schema?: Schema;
  /** Aborting it stops the consumer, as `stop()` does. */
  signal?: AbortSignal;
  /** How long one receive waits for messages on an empty queue (default 20 000). */
  receiveWaitMs?: number;
}

/** Options of `client.consumeBatches()`. */
export interface ConsumeBatchesOptions<Schema extends StandardSchemaV1 = StandardSchemaV1>
  extends ConsumeOptions<Schema> {
  /** The most messages one handler call gets, several receives joined (default 10). */
  maxBatchSize?: number;
  /** How long after the first message a batch waits for more before it starts (default 0: what is there). */
  maxWaitMs?: number;
}

/** Options of `client.consumeSessions()`. */
export interface ConsumeSessionsOptions<Schema extends StandardSchemaV1 = StandardSchemaV1>
  extends Omit<ConsumeOptions<Schema>, "concurrency"> {
  /** Sessions held at once, each running one message at a time (default 8). */
  maxConcurrentSessions?: number;
  /** A held session with nothing to receive for this long is closed and the next one taken (default 1 000). */
  sessionIdleTimeoutMs?: number;
}

/** What every consumer runs by: the options checked, with their defaults. */
export interface ConsumerSettings {
  /** Handlers (or batches, or sessions) running at once. */
  readonly concurrency: number;
  readonly prefetch: number;
  readonly maxLockRenewalMs: number;
  readonly handlerTimeoutMs: number | undefined;
  readonly retry: RetryPolicy;
  readonly rateLimit: RateLimit | undefined;
  readonly schema: StandardSchemaV1 | undefined;
  readonly signal: AbortSignal | undefined;
  readonly receiveWaitMs: number;
  readonly maxBatchSize: number;
  readonly maxWaitMs: number;
  readonly sessionIdleTimeoutMs: number;
}

/** Which consumer the options are for: each takes its own options beside the common ones. */
export type ConsumerKind = "consume" | "consumeBatches" | "consumeSessions";

const COMMON = [
  "prefetch",
  "maxLockRenewalMs",
  "handlerTimeoutMs",
  "retry",
  "rateLimit",
  "schema",
  "signal",
  "receiveWaitMs",
] as const;

const KNOWN: Readonly<Record<ConsumerKind, ReadonlySet<string>>> = {
  consume: new Set([...COMMON, "concurrency"]),
  consumeBatches: new Set([...COMMON, "concurrency", "maxBatchSize", "maxWaitMs"]),
  consumeSessions: new Set([...COMMON, "maxConcurrentSessions", "sessionIdleTimeoutMs"]),
};

const DEFAULT_RETRY: Readonly<RetryDelays> = Object.freeze({
  initialDelayMs: 1_000,
  maxDelayMs: 60_000,
  multiplier: 2,
  jitter: true,
});

const WEEK_MS = 7 * 86_400_000;
const MAX_CONCURRENCY = 1_000;

/** Checks the options of `kind`; anything wrong is a `Configuration` error naming the option. */
export function resolveConsumerSettings(
  kind: ConsumerKind,
  options: ConsumeBatchesOptions & ConsumeSessionsOptions,
): ConsumerSettings {
  if (options === null || typeof options !== "object")
    throw invalid(`the options of ${kind}() must be an object`);
  for (const key of Object.keys(options))
    if (!KNOWN[kind].has(key)) {
      const hint =
        key === "concurrency" ? " (sessions run one message at a time: use maxConcurrentSessions)" : "";
      throw invalid(`${kind}() has no option ${JSON.stringify(key)}${hint}`);
    }
  const concurrency =
    kind === "consumeSessions"
      ? count("maxConcurrentSessions", options.maxConcurrentSessions ?? 8, 1, MAX_CONCURRENCY)
      : count("concurrency", options.concurrency ?? 1, 1, MAX_CONCURRENCY);
  const maxBatchSize = count("maxBatchSize", options.maxBatchSize ?? 10, 1, MAX_RECEIVE_COUNT);
  const defaultPrefetch =
    kind === "consumeBatches" ? maxBatchSize : kind === "consumeSessions" ? 1 : concurrency;
  return {
    concurrency,
    prefetch: count(
      "prefetch",
      options.prefetch ?? defaultPrefetch,
      kind === "consumeSessions" ? 1 : 0,
      MAX_RECEIVE_COUNT,
    ),
    maxLockRenewalMs: duration("maxLockRenewalMs", options.maxLockRenewalMs ?? 300_000, 0, WEEK_MS),
    handlerTimeoutMs:
      options.handlerTimeoutMs === undefined
        ? undefined
        : duration("handlerTimeoutMs", options.handlerTimeoutMs, 1, WEEK_MS),
    retry: retryOf(options.retry),
    rateLimit: rateLimitOf(options.rateLimit),
    schema: schemaOf(options.schema),
    signal: signalOf(options.signal),
    receiveWaitMs: duration("receiveWaitMs", options.receiveWaitMs ?? 20_000, 1, MAX_WAIT_MS),
    maxBatchSize,
    maxWaitMs: duration("maxWaitMs", options.maxWaitMs ?? 0, 0, MAX_WAIT_MS),
    sessionIdleTimeoutMs: duration(
      "sessionIdleTimeoutMs",
      options.sessionIdleTimeoutMs ?? 1_000,
      1,
      MAX_WAIT_MS,
    ),
  };
}

/** The delay of the abandon after delivery `deliveryCount` failed, at most `maxDelayMs` (the provider's). */
export function retryDelay(settings: ConsumerSettings, deliveryCount: number, maxDelayMs: number): number {
  return Math.min(backoffDelay(settings.retry, Math.max(1, deliveryCount), undefined), maxDelayMs);
}

function retryOf(retry: Partial<RetryDelays> | undefined): RetryPolicy {
  if (retry !== undefined && (retry === null || typeof retry !== "object"))
    throw invalid("retry must be an object such as { initialDelayMs: 1000, maxDelayMs: 60000 }");
  for (const key of Object.keys(retry ?? {}))
    if (!(key in DEFAULT_RETRY)) throw invalid(`retry has no option ${JSON.stringify(key)}`);
  const merged = { ...DEFAULT_RETRY, ...retry };
  const initialDelayMs = duration("retry.initialDelayMs", merged.initialDelayMs, 0, WEEK_MS);
  const maxDelayMs = duration("retry.maxDelayMs", merged.maxDelayMs, 0, WEEK_MS);
  if (maxDelayMs < initialDelayMs)
    throw invalid(`retry.maxDelayMs (${maxDelayMs}) is below retry.initialDelayMs (${initialDelayMs})`);
  if (typeof merged.multiplier !== "number" || !(merged.multiplier >= 1) || merged.multiplier > 100)
    throw invalid("retry.multiplier must be a number from 1 to 100");
  if (typeof merged.jitter !== "boolean") throw invalid("retry.jitter must be a boolean");
  return { maxAttempts: 1, initialDelayMs, maxDelayMs, multiplier: merged.multiplier, jitter: merged.jitter };
}

function rateLimitOf(limit: RateLimit | undefined): RateLimit | undefined {
  if (limit === undefined) return undefined;
  if (limit === null || typeof limit !== "object")
    throw invalid("rateLimit must be an object such as { max: 100, perMs: 1000 }");
  return {
    max: count("rateLimit.max", limit.max, 1, 1_000_000),
    perMs: duration("rateLimit.perMs", limit.perMs, 1, WEEK_MS),
  };
}

function schemaOf(schema: StandardSchemaV1 | undefined): StandardSchemaV1 | undefined {
  if (schema === undefined) return undefined;
  const standard = (schema as Partial<StandardSchemaV1> | null)?.["~standard"];
  if (standard?.version !== 1 || typeof standard.validate !== "function")
    throw invalid("schema must implement Standard Schema v1 (zod, valibot, ArkType, ...)");
  return schema;
}

function signalOf(signal: AbortSignal | undefined): AbortSignal | undefined {
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw invalid("signal must be an AbortSignal");
  return signal;
}

function count(what: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max)
    throw invalid(`${what} must be a whole number from ${min} to ${max}, not ${String(value)}`);
  return value;
}

function duration(what: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max)
    throw invalid(
      `${what} must be a whole number of milliseconds from ${min} to ${max}, not ${String(value)}`,
    );
  return value;
}

function invalid(message: string): QueueError {
  return new QueueError("Configuration", message);
}
