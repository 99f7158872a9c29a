import { type Clock, sleep } from "./clock.js";
import { QueueError } from "./errors.js";
import { validateCount, validateDuration } from "./validation.js";

/** How the standard client repeats an operation that failed with a transient error. */
export interface RetryPolicy {
  /** Attempts in all, the first included; 1 turns retrying off. */
  maxAttempts: number;
  /** Wait before the second attempt. */
  initialDelayMs: number;
  /** The longest wait between two attempts. */
  maxDelayMs: number;
  /** Each wait is this many times the one before. */
  multiplier: number;
  /** Spreads each wait at random between half and all of it, so that many clients do not retry in step. */
  jitter: boolean;
}

/** 3 attempts, 100 ms doubling up to 10 s, with jitter. */
export const DEFAULT_RETRY_POLICY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 3,
  initialDelayMs: 100,
  maxDelayMs: 10_000,
  multiplier: 2,
  jitter: true,
});

/** A complete retry policy from a partial one, checked. */
export function resolveRetryPolicy(policy: Partial<RetryPolicy> | undefined): RetryPolicy {
  const merged = { ...DEFAULT_RETRY_POLICY, ...policy };
  validateCount("retryPolicy.maxAttempts", merged.maxAttempts, 1, 100);
  validateDuration("retryPolicy.initialDelayMs", merged.initialDelayMs, 0, 3_600_000);
  validateDuration("retryPolicy.maxDelayMs", merged.maxDelayMs, merged.initialDelayMs, 3_600_000);
  if (typeof merged.multiplier !== "number" || !(merged.multiplier >= 1) || merged.multiplier > 100)
    throw new QueueError("Configuration", "retryPolicy.multiplier must be a number from 1 to 100");
  if (typeof merged.jitter !== "boolean")
    throw new QueueError("Configuration", "retryPolicy.jitter must be a boolean");
  return merged;
}

/**
 * The wait before attempt `attempt + 1`: exponential, capped, with full jitter when asked,
 * and never shorter than what the service asked for (`retryAfterMs`).
 */
export function backoffDelay(
  policy: RetryPolicy,
  attempt: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(policy.maxDelayMs, policy.initialDelayMs * policy.multiplier ** (attempt - 1));
  const delay = policy.jitter ? Math.round(exponential / 2 + random() * (exponential / 2)) : exponential;
  return Math.max(delay, Math.min(retryAfterMs ?? 0, policy.maxDelayMs));
}

/** Called before each repeated attempt: the error that caused it and the wait before it. */
export type RetryListener = (error: QueueError, attempt: number, delayMs: number) => void;

/** Runs `operation`, repeating it after transient `QueueError`s as the policy allows; anything else passes through at once. */
export async function withRetry<T>(
  operation: () => Promise<T>,
  policy: RetryPolicy,
  clock: Clock,
  signal: AbortSignal,
  onRetry?: RetryListener,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (!(error instanceof QueueError)) throw error;
      if (!error.isTransient || attempt >= policy.maxAttempts || signal.aborted) throw error;
      const delay = backoffDelay(policy, attempt, error.retryAfterMs);
      onRetry?.(error, attempt, delay);
      await sleep(clock, delay, signal);
      if (signal.aborted) throw error;
    }
  }
}
