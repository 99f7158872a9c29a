import { describe, expect, it } from "vitest";
import { resolveRetryPolicy, retryAfterFailure } from "../../src/core/retry.js";
import { backoffDelay, DEFAULT_RETRY_POLICY, QueueError, VirtualClock } from "../../src/index.js";

const policy = { maxAttempts: 5, initialDelayMs: 100, maxDelayMs: 1_000, multiplier: 2, jitter: false };

describe("retry policy", () => {
  it("waits exponentially longer, capped at maxDelayMs", () => {
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(policy, attempt, undefined))).toEqual([
      100, 200, 400, 800, 1_000, 1_000,
    ]);
  });

  it("spreads waits between half and all of the exponential step with jitter", () => {
    const jittered = { ...policy, jitter: true };
    expect(backoffDelay(jittered, 3, undefined, () => 0)).toBe(200);
    expect(backoffDelay(jittered, 3, undefined, () => 0.999999)).toBe(400);
  });

  it("never waits less than the service asked, within the cap", () => {
    expect(backoffDelay(policy, 1, 700)).toBe(700);
    expect(backoffDelay(policy, 1, 60_000)).toBe(1_000);
  });

  it("fills in defaults and refuses nonsense with Configuration or Validation", () => {
    expect(resolveRetryPolicy(undefined)).toEqual(DEFAULT_RETRY_POLICY);
    expect(resolveRetryPolicy({ maxAttempts: 1 }).maxAttempts).toBe(1);
    for (const bad of [
      { maxAttempts: 0 },
      { multiplier: 0.5 },
      { initialDelayMs: -1 },
      { jitter: "yes" as unknown as boolean },
    ]) {
      expect(() => resolveRetryPolicy(bad)).toThrow(QueueError);
    }
  });

  it("repeats transient failures on the clock and gives up after maxAttempts", async () => {
    const clock = new VirtualClock();
    let calls = 0;
    const operation = async () => {
      calls++;
      throw new QueueError("Throttled", "slow down");
    };
    const outcome = retryAfterFailure(new QueueError("Throttled", "first"), operation, {
      policy,
      clock,
      signal: new AbortController().signal,
    }).catch((error: unknown) => error);
    await clock.advance(100 + 200 + 400 + 800);
    const error = await outcome;
    expect(QueueError.is(error, "Throttled")).toBe(true);
    expect(calls).toBe(4);
  });

  it("does not repeat a non-transient error, nor anything that is not a QueueError", async () => {
    const clock = new VirtualClock();
    const run = { policy, clock, signal: new AbortController().signal };
    await expect(retryAfterFailure(new QueueError("Validation", "no"), async () => 1, run)).rejects.toThrow(
      "no",
    );
    await expect(retryAfterFailure(new TypeError("bug"), async () => 1, run)).rejects.toThrow(TypeError);
  });
});
