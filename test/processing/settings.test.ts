import { describe, expect, it } from "vitest";
import { MessageQueue, MessageQueueResult } from "../../src/processing/index.js";
import { expectQueueError, harness } from "./harness.js";

const noop = () => undefined;

describe("max enqueued time (message_queue_set_max_message_enqueued_time_secs)", () => {
  it("SRS_MESSAGE_QUEUE_09_051 setMaxEnqueuedTimeMs fails with ClientClosed on a stopped queue and Validation on bad input", async () => {
    const { queue } = harness();
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "5" as unknown as number])
      expectQueueError(() => queue.setMaxEnqueuedTimeMs(bad), "Validation");
    expect(queue.retrieveOptions().maxEnqueuedTimeMs).toBe(0);
    await queue.stop();
    expectQueueError(() => queue.setMaxEnqueuedTimeMs(10), "ClientClosed");
  });

  it("SRS_MESSAGE_QUEUE_09_053 the new limit is saved and applies from the next tick", async () => {
    const { queue, clock, onCompleted, completions } = harness();
    queue.add("m", onCompleted);
    queue.setMaxEnqueuedTimeMs(200);
    expect(queue.retrieveOptions().maxEnqueuedTimeMs).toBe(200);
    await clock.advance(200);
    queue.doWork();
    expect(completions.map((c) => c.result)).toEqual(["Timeout"]);
  });

  it("turning the enqueue limit off and on again counts every message from the moment it is back", async () => {
    const { queue, clock, onCompleted, completions } = harness({ maxEnqueuedTimeMs: 100 });
    queue.add("in progress", onCompleted);
    queue.doWork();
    queue.add("pending", onCompleted);
    await clock.advance(50);
    queue.setMaxEnqueuedTimeMs(0);
    await clock.advance(100);
    queue.setMaxEnqueuedTimeMs(100);
    await clock.advance(99);
    queue.doWork();
    expect(completions).toEqual([]);
    await clock.advance(1);
    queue.doWork();
    expect(completions.map((c) => [c.message, c.result])).toEqual([
      ["in progress", "Timeout"],
      ["pending", "Timeout"],
    ]);
  });

  it("SRS_MESSAGE_QUEUE_09_054 a valid setMaxEnqueuedTimeMs succeeds without throwing", () => {
    const { queue } = harness();
    expect(queue.setMaxEnqueuedTimeMs(0)).toBeUndefined();
    expect(queue.setMaxEnqueuedTimeMs(Number.MAX_SAFE_INTEGER)).toBeUndefined();
    expect(queue.retrieveOptions().maxEnqueuedTimeMs).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe("max processing time (message_queue_set_max_message_processing_time_secs)", () => {
  it("SRS_MESSAGE_QUEUE_09_055 setMaxProcessingTimeMs fails with ClientClosed on a stopped queue and Validation on bad input", async () => {
    const { queue } = harness();
    for (const bad of [-5, 0.1, Number.NaN, undefined as unknown as number])
      expectQueueError(() => queue.setMaxProcessingTimeMs(bad), "Validation");
    expect(queue.retrieveOptions().maxProcessingTimeMs).toBe(0);
    await queue.stop();
    expectQueueError(() => queue.setMaxProcessingTimeMs(10), "ClientClosed");
  });

  it("SRS_MESSAGE_QUEUE_09_057 the new limit is saved; attempts already running count from the change", async () => {
    const { queue, clock, calls, onCompleted, completions } = harness();
    queue.add("m", onCompleted);
    queue.doWork();
    await clock.advance(1_000);
    queue.setMaxProcessingTimeMs(300);
    expect(queue.retrieveOptions().maxProcessingTimeMs).toBe(300);
    await clock.advance(299);
    queue.doWork();
    expect(completions).toEqual([]);
    await clock.advance(1);
    queue.doWork();
    expect(completions.map((c) => c.result)).toEqual(["Timeout"]);
    expect(calls[0]?.context.signal.aborted).toBe(true);
  });

  it("turning the processing limit off and on again counts every running attempt from the moment it is back", async () => {
    const { queue, clock, onCompleted, completions } = harness({ maxProcessingTimeMs: 100 });
    queue.add("m", onCompleted);
    queue.doWork();
    await clock.advance(50);
    queue.setMaxProcessingTimeMs(0);
    await clock.advance(100);
    queue.setMaxProcessingTimeMs(100);
    await clock.advance(99);
    queue.doWork();
    expect(completions).toEqual([]);
    await clock.advance(1);
    queue.doWork();
    expect(completions.map((c) => c.result)).toEqual(["Timeout"]);
  });

  it("SRS_MESSAGE_QUEUE_09_058 a valid setMaxProcessingTimeMs succeeds without throwing", () => {
    const { queue } = harness();
    expect(queue.setMaxProcessingTimeMs(10)).toBeUndefined();
    expect(queue.setMaxProcessingTimeMs(0)).toBeUndefined();
    expect(queue.retrieveOptions().maxProcessingTimeMs).toBe(0);
  });
});

describe("max retry count (message_queue_set_max_retry_count)", () => {
  it("SRS_MESSAGE_QUEUE_09_059 setMaxRetryCount fails with ClientClosed on a stopped queue and Validation on bad input", async () => {
    const { queue } = harness();
    for (const bad of [-1, 2.5, Number.NaN, null as unknown as number])
      expectQueueError(() => queue.setMaxRetryCount(bad), "Validation");
    expect(queue.retrieveOptions().maxRetryCount).toBe(0);
    await queue.stop();
    expectQueueError(() => queue.setMaxRetryCount(1), "ClientClosed");
  });

  it("SRS_MESSAGE_QUEUE_09_060 the new retry count is saved and governs the next retryable error", () => {
    const { queue, calls, completions, onCompleted } = harness();
    queue.add("m", onCompleted);
    queue.setMaxRetryCount(1);
    expect(queue.retrieveOptions().maxRetryCount).toBe(1);
    queue.doWork();
    calls[0]?.complete(MessageQueueResult.RetryableError);
    expect(queue.pendingCount).toBe(1);
    queue.setMaxRetryCount(0);
    queue.doWork();
    calls[1]?.complete(MessageQueueResult.RetryableError);
    expect(completions.map((c) => c.result)).toEqual(["Error"]);
  });

  it("SRS_MESSAGE_QUEUE_09_061 a valid setMaxRetryCount succeeds without throwing", () => {
    const { queue } = harness();
    expect(queue.setMaxRetryCount(5)).toBeUndefined();
    expect(queue.retrieveOptions().maxRetryCount).toBe(5);
  });
});

describe("retrieving the options (message_queue_retrieve_options)", () => {
  it("SRS_MESSAGE_QUEUE_09_062 retrieveOptions needs no live queue: a stopped queue still reports its settings", async () => {
    const { queue } = harness({ maxRetryCount: 2 });
    await queue.stop();
    expect(queue.retrieveOptions()).toEqual({
      maxEnqueuedTimeMs: 0,
      maxProcessingTimeMs: 0,
      maxRetryCount: 2,
    });
  });

  it("SRS_MESSAGE_QUEUE_09_063 each call creates a new plain object that does not alias the queue", () => {
    const { queue } = harness({ maxProcessingTimeMs: 100 });
    const first = queue.retrieveOptions();
    const second = queue.retrieveOptions();
    expect(first).not.toBe(second);
    expect(Object.getPrototypeOf(first)).toBe(Object.prototype);
    first.maxProcessingTimeMs = 5;
    expect(queue.retrieveOptions().maxProcessingTimeMs).toBe(100);
  });

  it("SRS_MESSAGE_QUEUE_09_064 the snapshot cannot fail: it survives a JSON round trip unchanged", () => {
    const { queue } = harness({ maxEnqueuedTimeMs: 1, maxProcessingTimeMs: 2, maxRetryCount: 3 });
    const snapshot = queue.retrieveOptions();
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
  });

  it("SRS_MESSAGE_QUEUE_09_065 every setting of the queue is in the snapshot", () => {
    const { queue } = harness({ maxEnqueuedTimeMs: 1, maxProcessingTimeMs: 2, maxRetryCount: 3 });
    expect(Object.keys(queue.retrieveOptions()).sort()).toEqual([
      "maxEnqueuedTimeMs",
      "maxProcessingTimeMs",
      "maxRetryCount",
    ]);
    expect(queue.retrieveOptions()).toEqual({
      maxEnqueuedTimeMs: 1,
      maxProcessingTimeMs: 2,
      maxRetryCount: 3,
    });
  });

  it("SRS_MESSAGE_QUEUE_09_066 the snapshot holds only numbers: nothing that could fail to serialise", () => {
    const { queue } = harness({ maxRetryCount: 1 });
    for (const value of Object.values(queue.retrieveOptions())) expect(Number.isInteger(value)).toBe(true);
  });

  it("SRS_MESSAGE_QUEUE_09_067 retrieveOptions changes nothing: no message, no timer", () => {
    const { queue, clock } = harness();
    queue.start({ intervalMs: 10 });
    queue.retrieveOptions();
    expect(queue.isEmpty()).toBe(true);
    expect(clock.pendingTimers).toBe(0);
  });

  it("SRS_MESSAGE_QUEUE_09_068 a queue created from the snapshot has the same settings", () => {
    const { queue } = harness({ maxEnqueuedTimeMs: 60_000, maxProcessingTimeMs: 10_000, maxRetryCount: 3 });
    queue.setMaxRetryCount(4);
    const snapshot = queue.retrieveOptions();
    const copy = new MessageQueue<string>({ ...snapshot, onProcessMessage: noop });
    expect(copy.retrieveOptions()).toEqual(snapshot);
  });
});
