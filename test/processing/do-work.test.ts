import { describe, expect, it } from "vitest";
import { QueueError } from "../../src/core/errors.js";
import { MessageQueue, MessageQueueResult, MessageState } from "../../src/processing/index.js";
import { CountingClock, harness } from "./harness.js";

describe("a tick (message_queue_do_work)", () => {
  it("SRS_MESSAGE_QUEUE_09_034 doWork on an empty or stopped queue returns at once: no processor call, no clock read", async () => {
    const clock = new CountingClock();
    const calls: string[] = [];
    const queue = new MessageQueue<string>({
      clock,
      onProcessMessage: (message) => {
        calls.push(message);
      },
      maxEnqueuedTimeMs: 1_000,
      maxProcessingTimeMs: 1_000,
    });
    queue.doWork();
    expect(clock.reads).toBe(0);
    queue.add("m");
    await queue.stop();
    const reads = clock.reads;
    queue.doWork();
    expect(clock.reads).toBe(reads);
    expect(calls).toEqual([]);
  });

  it("SRS_MESSAGE_QUEUE_09_035 with maxEnqueuedTimeMs > 0 both pending and in-progress messages are checked; with 0 none are", async () => {
    const { queue, clock, onCompleted, completions } = harness({ maxEnqueuedTimeMs: 1_000 });
    queue.add("in progress", onCompleted);
    queue.doWork();
    queue.add("pending", onCompleted);
    await clock.advance(1_000);
    queue.setMaxEnqueuedTimeMs(0);
    queue.doWork();
    expect(completions).toEqual([]);
    queue.setMaxEnqueuedTimeMs(1_000);
    await clock.advance(1_000);
    queue.doWork();
    expect(completions.map((c) => [c.message, c.result])).toEqual([
      ["in progress", "Timeout"],
      ["pending", "Timeout"],
    ]);
  });

  it("SRS_MESSAGE_QUEUE_09_036 a message in the queue for maxEnqueuedTimeMs or more is removed with Timeout", async () => {
    const { queue, clock, onCompleted, completions, calls } = harness({ maxEnqueuedTimeMs: 500 });
    const handle = queue.add("m", onCompleted);
    await clock.advance(499);
    queue.doWork();
    expect(calls).toHaveLength(1);
    await clock.advance(1);
    queue.doWork();
    expect(completions).toHaveLength(1);
    expect(completions[0]?.result).toBe(MessageQueueResult.Timeout);
    expect(completions[0]?.reason).toBeInstanceOf(QueueError);
    expect(completions[0]?.reason).toMatchObject({ code: "Timeout" });
    expect(handle.state).toBe(MessageState.Completed);
    expect(queue.isEmpty()).toBe(true);
  });

  it("SRS_MESSAGE_QUEUE_09_037 maxProcessingTimeMs applies only to in-progress messages", async () => {
    const { queue, clock, onCompleted, completions, calls } = harness({ maxProcessingTimeMs: 100 });
    queue.add("pending for long", onCompleted);
    await clock.advance(10_000);
    queue.doWork();
    expect(completions).toEqual([]);
    expect(calls).toHaveLength(1);
    await clock.advance(100);
    queue.doWork();
    expect(completions.map((c) => c.result)).toEqual(["Timeout"]);
  });

  it("SRS_MESSAGE_QUEUE_09_038 an attempt running maxProcessingTimeMs or more times out and its signal is aborted", async () => {
    const { queue, clock, onCompleted, completions, calls } = harness({ maxProcessingTimeMs: 100 });
    queue.add("slow", onCompleted);
    queue.doWork();
    const signal = calls[0]?.context.signal;
    await clock.advance(99);
    queue.doWork();
    expect(signal?.aborted).toBe(false);
    await clock.advance(1);
    queue.doWork();
    expect(completions.map((c) => c.result)).toEqual(["Timeout"]);
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBe(completions[0]?.reason);
    calls[0]?.complete(MessageQueueResult.Success);
    expect(completions).toHaveLength(1);
  });

  it("SRS_MESSAGE_QUEUE_09_039 a tick moves every pending message to in progress", () => {
    const { queue, calls } = harness();
    const handles = ["a", "b", "c"].map((m) => queue.add(m));
    queue.doWork();
    expect(queue.pendingCount).toBe(0);
    expect(queue.inProgressCount).toBe(3);
    expect(handles.every((h) => h.state === MessageState.InProgress)).toBe(true);
    expect(calls.map((c) => c.message)).toEqual(["a", "b", "c"]);
  });

  it("SRS_MESSAGE_QUEUE_09_040 the processing time counts from the tick that started the attempt", async () => {
    const { queue, clock, onCompleted, completions } = harness({ maxProcessingTimeMs: 1_000 });
    queue.add("m", onCompleted);
    await clock.advance(500);
    queue.doWork();
    await clock.advance(999);
    queue.doWork();
    expect(completions).toEqual([]);
    await clock.advance(1);
    queue.doWork();
    expect(completions.map((c) => c.result)).toEqual(["Timeout"]);
  });

  it("SRS_MESSAGE_QUEUE_09_041 when the clock fails at a tick, the message does not stay in progress", () => {
    const clock = new CountingClock();
    const queue = new MessageQueue<string>({
      clock,
      onProcessMessage: () => undefined,
      maxProcessingTimeMs: 100,
    });
    const handle = queue.add("m");
    clock.failing = true;
    queue.doWork();
    expect(queue.inProgressCount).toBe(0);
    expect(handle.state).toBe(MessageState.Completed);
  });

  it("SRS_MESSAGE_QUEUE_09_042 a message that cannot start completes with Error and is released, unprocessed", () => {
    const clock = new CountingClock();
    const completions: Array<[string, unknown]> = [];
    const calls: string[] = [];
    const queue = new MessageQueue<string>({
      clock,
      onProcessMessage: (message) => {
        calls.push(message);
      },
      maxProcessingTimeMs: 100,
    });
    queue.add("m", (_message, result, reason) => completions.push([result, reason]));
    clock.failing = true;
    queue.doWork();
    expect(calls).toEqual([]);
    expect(completions).toHaveLength(1);
    expect(completions[0]?.[0]).toBe(MessageQueueResult.Error);
    expect(completions[0]?.[1]).toMatchObject({ code: "Configuration" });
    expect(queue.isEmpty()).toBe(true);
  });

  it("SRS_MESSAGE_QUEUE_09_043 the processor gets the message, a complete function and the attempt's context", () => {
    const { queue, calls } = harness();
    queue.add("m");
    queue.doWork();
    const call = calls[0];
    expect(call?.message).toBe("m");
    expect(typeof call?.complete).toBe("function");
    expect(call?.context.attempt).toBe(1);
    expect(call?.context.signal).toBeInstanceOf(AbortSignal);
    expect(call?.context.signal.aborted).toBe(false);
  });

  it("messages added or sent back for a retry during a tick wait for the next tick", () => {
    const calls: string[] = [];
    const { queue } = harness({
      maxRetryCount: 5,
      onProcessMessage: (message, complete) => {
        calls.push(message);
        if (message === "parent") queue.add("child");
        complete(MessageQueueResult.RetryableError);
      },
    });
    queue.add("parent");
    queue.doWork();
    expect(calls).toEqual(["parent"]);
    expect(queue.pendingCount).toBe(2);
  });

  it("only the messages past a limit time out; younger ones in the same lists stay", async () => {
    const { queue, clock, onCompleted, completions } = harness({
      maxEnqueuedTimeMs: 1_000,
      maxProcessingTimeMs: 300,
    });
    for (let i = 0; i < 1_000; i++) queue.add(`old-${i}`, onCompleted);
    queue.doWork();
    await clock.advance(200);
    for (let i = 0; i < 1_000; i++) queue.add(`new-${i}`, onCompleted);
    queue.doWork();
    await clock.advance(100);
    queue.doWork();
    expect(completions).toHaveLength(1_000);
    expect(completions.every((c) => c.message.startsWith("old-") && c.result === "Timeout")).toBe(true);
  });
});
