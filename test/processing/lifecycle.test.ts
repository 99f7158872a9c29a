import { describe, expect, it } from "vitest";
import { DEFAULT_INTERVAL_MS, MessageQueueResult, MessageState } from "../../src/processing/index.js";
import { expectQueueError, harness } from "./harness.js";

describe("stopping the queue (message_queue_destroy)", () => {
  it("SRS_MESSAGE_QUEUE_09_013 stop on a stopped queue returns at once and does nothing more", async () => {
    const { queue, completions, onCompleted } = harness();
    queue.add("m", onCompleted);
    await queue.stop();
    await queue.stop();
    await queue.stop({ drain: true });
    expect(completions).toHaveLength(1);
  });

  it("SRS_MESSAGE_QUEUE_09_014 stop removes everything: pending and in-progress messages complete with Cancelled", async () => {
    const { queue, calls, completions, onCompleted } = harness();
    queue.add("in progress", onCompleted);
    queue.doWork();
    queue.add("pending", onCompleted);
    await queue.stop();
    expect(completions.map((c) => [c.message, c.result])).toEqual([
      ["in progress", "Cancelled"],
      ["pending", "Cancelled"],
    ]);
    expect(calls[0]?.context.signal.aborted).toBe(true);
  });

  it("SRS_MESSAGE_QUEUE_09_015 a stopped queue holds nothing: no message, no timer, no late completion", async () => {
    const { queue, clock, calls, completions, onCompleted } = harness();
    queue.start({ intervalMs: 10 });
    const handle = queue.add("m", onCompleted);
    await clock.advance(10);
    expect(clock.pendingTimers).toBe(1);
    await queue.stop();
    expect(clock.pendingTimers).toBe(0);
    expect(queue.isEmpty()).toBe(true);
    expect(handle.state).toBe(MessageState.Completed);
    calls[0]?.complete(MessageQueueResult.Success);
    expect(completions).toHaveLength(1);
    expectQueueError(() => queue.start(), "ClientClosed");
  });
});

describe("ticking by itself (start)", () => {
  it("start ticks on the injected clock, only while the queue holds messages", async () => {
    const { queue, clock, calls } = harness();
    queue.start({ intervalMs: 100 });
    expect(clock.pendingTimers).toBe(0);
    queue.add("a");
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(99);
    expect(calls).toHaveLength(0);
    await clock.advance(1);
    expect(calls.map((c) => c.message)).toEqual(["a"]);
    calls[0]?.complete(MessageQueueResult.Success);
    expect(clock.pendingTimers).toBe(0);
    queue.add("b");
    await clock.advance(100);
    expect(calls.map((c) => c.message)).toEqual(["a", "b"]);
  });

  it("retries and processing timeouts are handled by the ticks", async () => {
    const { queue, clock, calls, completions, onCompleted } = harness({
      maxRetryCount: 1,
      maxProcessingTimeMs: 250,
    });
    queue.start({ intervalMs: 100 });
    queue.add("m", onCompleted);
    await clock.advance(100);
    calls[0]?.complete(MessageQueueResult.RetryableError);
    await clock.advance(100);
    expect(calls.map((c) => c.context.attempt)).toEqual([1, 2]);
    await clock.advance(300);
    expect(completions.map((c) => c.result)).toEqual(["Timeout"]);
    expect(clock.pendingTimers).toBe(0);
  });

  it("start again changes the interval; bad intervals throw Validation", async () => {
    const { queue, clock, calls } = harness();
    queue.start({ intervalMs: 1_000 });
    queue.add("m");
    queue.start({ intervalMs: 10 });
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(10);
    expect(calls).toHaveLength(1);
    for (const intervalMs of [0, -1, 1.5, Number.NaN])
      expectQueueError(() => queue.start({ intervalMs }), "Validation");
  });
});

describe("draining (stop({ drain: true }))", () => {
  it("drain lets pending and in-progress messages finish, retries included, then resolves with no timer left", async () => {
    const { queue, clock, calls, completions, onCompleted } = harness({ maxRetryCount: 1 });
    queue.add("in progress", onCompleted);
    queue.doWork();
    queue.add("pending", onCompleted);
    let stopped = false;
    const stopping = queue.stop({ drain: true }).then(() => {
      stopped = true;
    });
    expect(calls.map((c) => c.message)).toEqual(["in progress", "pending"]);
    calls[0]?.complete(MessageQueueResult.Success);
    calls[1]?.complete(MessageQueueResult.RetryableError);
    await clock.advance(DEFAULT_INTERVAL_MS);
    expect(stopped).toBe(false);
    expect(calls).toHaveLength(3);
    calls[2]?.complete(MessageQueueResult.Success);
    await stopping;
    expect(completions.map((c) => [c.message, c.result])).toEqual([
      ["in progress", "Success"],
      ["pending", "Success"],
    ]);
    expect(clock.pendingTimers).toBe(0);
    expectQueueError(() => queue.add("late"), "ClientClosed");
  });

  it("drain with timeoutMs cancels what is still unfinished when the time is up", async () => {
    const { queue, clock, calls, completions, onCompleted } = harness();
    queue.start({ intervalMs: 10 });
    queue.add("stuck", onCompleted);
    const stopping = queue.stop({ drain: true, timeoutMs: 500 });
    await clock.advance(499);
    expect(completions).toEqual([]);
    await clock.advance(1);
    await stopping;
    expect(completions.map((c) => c.result)).toEqual(["Cancelled"]);
    expect(calls[0]?.context.signal.aborted).toBe(true);
    expect(clock.pendingTimers).toBe(0);
  });

  it("stop without drain during a drain cancels the rest; both calls resolve", async () => {
    const { queue, clock, completions, onCompleted } = harness();
    queue.add("stuck", onCompleted);
    const draining = queue.stop({ drain: true });
    const cancelling = queue.stop();
    await Promise.all([draining, cancelling]);
    expect(completions.map((c) => c.result)).toEqual(["Cancelled"]);
    expect(clock.pendingTimers).toBe(0);
  });

  it("settings can still change while draining; bad stop options throw Validation", async () => {
    const { queue, clock, completions, onCompleted } = harness();
    queue.add("slow", onCompleted);
    const stopping = queue.stop({ drain: true });
    queue.setMaxProcessingTimeMs(50);
    await clock.advance(DEFAULT_INTERVAL_MS);
    await stopping;
    expect(completions.map((c) => c.result)).toEqual(["Timeout"]);
    expectQueueError(() => queue.stop({ drain: "yes" as unknown as boolean }), "Validation");
  });

  it("draining an empty queue resolves at once", async () => {
    const { queue, clock } = harness();
    await queue.stop({ drain: true });
    expect(clock.pendingTimers).toBe(0);
    expectQueueError(() => queue.add("m"), "ClientClosed");
  });
});
