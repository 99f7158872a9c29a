import type { Clock } from "../core/clock.js";
import { QueueError } from "../core/errors.js";
import { validateCount, validateDuration } from "../core/validation.js";
import type { MessageQueueResult } from "./message-queue-result.js";

/** Reports how one processing attempt ended; bound to its message and attempt, later calls are ignored. */
export type CompleteProcessing = (result: MessageQueueResult, reason?: unknown) => void;

/** What a processor knows about the attempt it runs. */
export interface ProcessingContext {
  /** Aborted when the message times out or is cancelled: stop working when it fires. One per message. */
  readonly signal: AbortSignal;
  /** 1 for the first attempt, 2 for the first retry, and so on. */
  readonly attempt: number;
}

/**
 * Processes one message (the seed's `on_process_message_callback`). It reports the outcome by
 * calling `complete` (now or later) or by returning a Promise (any other return value is ignored):
 * fulfilled means `Success`, rejected means `Error`, or `RetryableError` when the rejection
 * `isRetryable`. A throw counts as a rejection; whichever outcome comes first wins.
 */
export type ProcessMessage<T> = (
  message: T,
  complete: CompleteProcessing,
  context: ProcessingContext,
) => unknown;

/** Called exactly once per added message with its final result (the seed's completion callback). */
export type MessageProcessingCompleted<T, C = undefined> = (
  message: T,
  result: MessageQueueResult,
  reason: unknown,
  context: C,
) => void;

/** The settings of a queue as a plain, serialisable object: what `retrieveOptions()` returns. */
export interface MessageQueueSettings {
  /** How long a message may stay in the queue (pending and in progress together); 0 = no limit. */
  maxEnqueuedTimeMs: number;
  /** How long one processing attempt may take; 0 = no limit. */
  maxProcessingTimeMs: number;
  /** How many times a message failing with `RetryableError` is tried again; 0 = never. */
  maxRetryCount: number;
}

/** What a {@link MessageQueue} is created from (the seed's `MESSAGE_QUEUE_CONFIG`). */
export interface MessageQueueOptions<T> extends Partial<MessageQueueSettings> {
  /** Processes each message; required. */
  onProcessMessage: ProcessMessage<T>;
  /** The source of time for limits and ticking; `systemClock` unless testing. */
  clock?: Clock;
  /**
   * Receives what a callback threw that cannot become a result: a completion callback that
   * threw, or a processor that threw after its attempt had already completed. Default: a process warning.
   */
  onCallbackError?: (error: unknown, message: T) => void;
}

/** How `start()` ticks. */
export interface StartOptions {
  /** Time between two ticks, in milliseconds (default {@link DEFAULT_INTERVAL_MS}). */
  intervalMs?: number;
}

/** How `stop()` ends the queue. */
export interface StopOptions {
  /** Let pending and in-progress messages finish (true) or cancel them at once (false, the default). */
  drain?: boolean;
  /** With `drain`, cancel whatever is still unfinished after this many milliseconds; 0 or absent = wait. */
  timeoutMs?: number;
}

/** Tick interval of `start()` and of a draining `stop()` when none was given. */
export const DEFAULT_INTERVAL_MS = 100;

/** The longest interval a timer accepts in one go. */
const MAX_INTERVAL_MS = 2_147_483_647;

/** Default settings: no limits and no retries, as a zeroed seed configuration. */
export const DEFAULT_SETTINGS: Readonly<MessageQueueSettings> = {
  maxEnqueuedTimeMs: 0,
  maxProcessingTimeMs: 0,
  maxRetryCount: 0,
};

/** Throws `Validation` unless `value` is a limit in whole milliseconds, 0 meaning none. */
export function validateLimitMs(what: string, value: unknown): number {
  return validateDuration(what, value, 0, Number.MAX_SAFE_INTEGER);
}

/** Throws `Validation` unless `value` is a whole, non-negative retry count. */
export function validateRetryCount(value: unknown): number {
  return validateCount("maxRetryCount", value, 0, Number.MAX_SAFE_INTEGER);
}

/** Throws `Validation` unless `value` is a tick interval of at least 1 ms. */
export function validateIntervalMs(value: unknown): number {
  return validateDuration("intervalMs", value, 1, MAX_INTERVAL_MS);
}

/** Validates everything a queue is created from; throws `Validation` on the first problem. */
export function resolveOptions<T>(options: MessageQueueOptions<T>): MessageQueueSettings {
  if (typeof options !== "object" || options === null)
    throw new QueueError("Validation", "a MessageQueue needs an options object with onProcessMessage");
  if (typeof options.onProcessMessage !== "function")
    throw new QueueError("Validation", "onProcessMessage must be a function");
  if (options.onCallbackError !== undefined && typeof options.onCallbackError !== "function")
    throw new QueueError("Validation", "onCallbackError must be a function");
  const clock: unknown = options.clock;
  if (clock !== undefined && !isClock(clock))
    throw new QueueError("Validation", "clock must have now() and setTimer() functions");
  return {
    maxEnqueuedTimeMs: validateLimitMs(
      "maxEnqueuedTimeMs",
      options.maxEnqueuedTimeMs ?? DEFAULT_SETTINGS.maxEnqueuedTimeMs,
    ),
    maxProcessingTimeMs: validateLimitMs(
      "maxProcessingTimeMs",
      options.maxProcessingTimeMs ?? DEFAULT_SETTINGS.maxProcessingTimeMs,
    ),
    maxRetryCount: validateRetryCount(options.maxRetryCount ?? DEFAULT_SETTINGS.maxRetryCount),
  };
}

/** Throws `Validation` unless `options` is a valid argument of `stop()`. */
export function resolveStopOptions(options: StopOptions): { drain: boolean; timeoutMs: number } {
  if (typeof options !== "object" || options === null)
    throw new QueueError("Validation", "stop options must be an object");
  if (options.drain !== undefined && typeof options.drain !== "boolean")
    throw new QueueError("Validation", "drain must be a boolean");
  return { drain: options.drain ?? false, timeoutMs: validateLimitMs("timeoutMs", options.timeoutMs ?? 0) };
}

/** Throws `Validation` unless `options` is a valid argument of `start()`. */
export function resolveStartOptions(options: StartOptions): number {
  if (typeof options !== "object" || options === null)
    throw new QueueError("Validation", "start options must be an object");
  return validateIntervalMs(options.intervalMs ?? DEFAULT_INTERVAL_MS);
}

function isClock(value: unknown): value is Clock {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Partial<Record<keyof Clock, unknown>>;
  return typeof candidate.now === "function" && typeof candidate.setTimer === "function";
}
