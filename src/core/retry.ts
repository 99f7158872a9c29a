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

/** How {@link retryAfterFailure} repeats an operation. */
export interface RetryRun {
  readonly policy: RetryPolicy;
  readonly clock: Clock;
  /** Ends the retrying: the last error is thrown at once. */
  readonly signal: AbortSignal;
  readonly onRetry?: RetryListener | undefined;
  /** Whether an error may be retried; by default transient `QueueError`s. */
  readonly retryable?: ((error: QueueError) => boolean) | undefined;
}

/**
 * Continues after `operation` failed once with `error`: waits with backoff and tries again while
 * the error is transient and the policy allows; throws the last error otherwise. Anything that is
 * not a `QueueError` is thrown at once.
 */
export async function retryAfterFailure<T>(
  error: unknown,
  operation: () => Promise<T>,
  run: RetryRun,
): Promise<T> {
  let last = error;
  for (let attempt = 1; ; attempt++) {
    if (!(last instanceof QueueError)) throw last;
    const retryable = run.retryable ? run.retryable(last) : last.isTransient;
    if (!retryable || attempt >= run.policy.maxAttempts || run.signal.aborted) throw last;
    const delay = backoffDelay(run.policy, attempt, last.retryAfterMs);
    run.onRetry?.(last, attempt, delay);
    await sleep(run.clock, delay, run.signal);
    if (run.signal.aborted) throw last;
    try {
      return await operation();
    } catch (next) {
      last = next;
    }
  }
}

/** Runs `operation`, repeating it after transient `QueueError`s as the policy allows. */
export async function withRetry<T>(operation: () => Promise<T>, run: RetryRun): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    return retryAfterFailure(error, operation, run);
  }
}
