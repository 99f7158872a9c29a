import { describe, expect, it } from "vitest";
import { QueueError } from "../../src/core/errors.js";
import {
  isRetryable,
  MessageQueue,
  MessageQueueResult,
  MessageState,
  RetryableError,
} from "../../src/processing/index.js";
import { expectQueueError, flush, harness } from "./harness.js";

describe("completing a message (on_process_message_completed_callback)", () => {
  it("SRS_MESSAGE_QUEUE_09_069 complete without a valid result throws Validation and leaves the message in progress", () => {
    const { queue, calls, completions, onCompleted } = harness();
    queue.add("m", onCompleted);
    queue.doWork();
    const complete = calls[0]?.complete as (result?: unknown) => void;
    expectQueueError(() => complete(), "Validation");
    expectQueueError(() => complete("Done"), "Validation");
    expect(queue.inProgressCount).toBe(1);
    expect(completions).toEqual([]);
    complete(MessageQueueResult.Success);
    expect(completions.map((c) => c.result)).toEqual(["Success"]);
  });

  it("SRS_MESSAGE_QUEUE_09_044 a completion for a message no longer in progress is ignored", async () => {
    const { queue, calls, completions, onCompleted, clock } = harness({ maxProcessingTimeMs: 10 });
    queue.add("done", onCompleted);
    queue.add("timed out", onCompleted);
    queue.doWork();
    calls[0]?.complete(MessageQueueResult.Success);
    calls[0]?.complete(MessageQueueResult.Error);
    await clock.advance(10);
    queue.doWork();
    calls[1]?.complete(MessageQueueResult.Success);
    expect(completions.map((c) => [c.message, c.result])).toEqual([
      ["done", "Success"],
      ["timed out", "Timeout"],
    ]);
  });

  it("SRS_MESSAGE_QUEUE_09_044 a completion from an earlier attempt is ignored once a retry runs", () => {
    const { queue, calls, completions, onCompleted } = harness({ maxRetryCount: 1 });
    const handle = queue.add("m", onCompleted);
    queue.doWork();
    calls[0]?.complete(MessageQueueResult.RetryableError);
    queue.doWork();
    calls[0]?.complete(MessageQueueResult.Success);
    expect(handle.state).toBe(MessageState.InProgress);
    expect(completions).toEqual([]);
    calls[1]?.complete(MessageQueueResult.Error, "second attempt");
    expect(completions.map((c) => [c.result, c.reason])).toEqual([["Error", "second attempt"]]);
  });

  it("SRS_MESSAGE_QUEUE_09_045 a completed message leaves the in-progress list", () => {
    const { queue, calls } = harness();
    queue.add("a");
    queue.add("b");
    queue.doWork();
    calls[1]?.complete(MessageQueueResult.Success);
    expect(queue.inProgressCount).toBe(1);
    calls[0]?.complete(MessageQueueResult.Success);
    expect(queue.inProgressCount).toBe(0);
  });

  it("SRS_MESSAGE_QUEUE_09_047 retryable error goes back to pending while attempts <= maxRetryCount", () => {
    const { queue, calls, completions, onCompleted } = harness({ maxRetryCount: 2 });
    const handle = queue.add("m", onCompleted);
    for (let attempt = 1; attempt <= 2; attempt++) {
      queue.doWork();
      expect(calls.at(-1)?.context.attempt).toBe(attempt);
      calls.at(-1)?.complete(MessageQueueResult.RetryableError, "busy");
      expect(handle.state).toBe(MessageState.Pending);
      expect(queue.pendingCount).toBe(1);
    }
    expect(completions).toEqual([]);
    queue.doWork();
    calls.at(-1)?.complete(MessageQueueResult.Success);
    expect(completions.map((c) => c.result)).toEqual(["Success"]);
    expect(handle.attempts).toBe(3);
  });

  it("SRS_MESSAGE_QUEUE_09_048 retryable error becomes Error once attempts exceed maxRetryCount", () => {
    const { queue, calls, completions, onCompleted } = harness({ maxRetryCount: 1 });
    const handle = queue.add("m", onCompleted);
    queue.doWork();
    calls[0]?.complete(MessageQueueResult.RetryableError, "first");
    queue.doWork();
    calls[1]?.complete(MessageQueueResult.RetryableError, "second");
    expect(completions).toEqual([{ message: "m", result: "Error", reason: "second", context: undefined }]);
    expect(handle.attempts).toBe(2);
    queue.doWork();
    expect(calls).toHaveLength(2);
  });

  it("SRS_MESSAGE_QUEUE_09_049 any other result reaches the completion callback with message, result, reason and context", () => {
    const { queue, calls, completions, onCompleted } = harness();
    const results = [
      MessageQueueResult.Success,
      MessageQueueResult.Error,
      MessageQueueResult.Timeout,
      MessageQueueResult.Cancelled,
    ];
    for (const result of results) queue.add(result, onCompleted, { for: result });
    queue.doWork();
    calls.forEach((call, i) => {
      call.complete(results[i] as MessageQueueResult, `reason ${i}`);
    });
    expect(completions).toEqual(
      results.map((result, i) => ({
        message: result,
        result,
        reason: `reason ${i}`,
        context: { for: result },
      })),
    );
  });

  it("SRS_MESSAGE_QUEUE_09_050 a completed message is released: handle completed, queue empty, no more calls", () => {
    const { queue, calls } = harness();
    const handle = queue.add("m");
    queue.doWork();
    calls[0]?.complete(MessageQueueResult.Success);
    expect(handle.state).toBe(MessageState.Completed);
    expect(queue.isEmpty()).toBe(true);
    queue.doWork();
    expect(calls).toHaveLength(1);
  });
});

describe("how a processor completes", () => {
  it("a fulfilled Promise means Success, a rejected one Error, a retryable rejection RetryableError", async () => {
    const outcomes: Record<string, unknown> = {};
    const queue = new MessageQueue<string>({
      maxRetryCount: 1,
      onProcessMessage: async (message, _complete, { attempt }) => {
        if (message === "fails") throw new Error("broken");
        if (message === "retries" && attempt === 1) throw new RetryableError("busy");
        if (message === "marked" && attempt === 1)
          throw Object.assign(new Error("busy"), { retryable: true });
        if (message === "transient" && attempt === 1) throw new QueueError("Throttled", "slow down");
      },
    });
    for (const message of ["works", "fails", "retries", "marked", "transient"])
      queue.add(message, (_m, result, reason) => {
        outcomes[message] = [result, reason instanceof Error ? reason.message : reason];
      });
    queue.doWork();
    await flush();
    queue.doWork();
    await flush();
    expect(outcomes).toEqual({
      works: ["Success", undefined],
      fails: ["Error", "broken"],
      retries: ["Success", undefined],
      marked: ["Success", undefined],
      transient: ["Success", undefined],
    });
  });

  it("a processor that throws completes its message with Error and the tick goes on", () => {
    const { queue, completions, onCompleted } = harness({
      onProcessMessage: (message, complete) => {
        if (message === "bad") throw new Error("exploded");
        complete(MessageQueueResult.Success);
      },
    });
    queue.add("bad", onCompleted);
    queue.add("good", onCompleted);
    queue.doWork();
    expect(completions.map((c) => [c.message, c.result])).toEqual([
      ["bad", "Error"],
      ["good", "Success"],
    ]);
    expect(completions[0]?.reason).toMatchObject({ message: "exploded" });
  });

  it("complete may be called later, after the tick", async () => {
    const { queue, completions, onCompleted } = harness({
      onProcessMessage: (_message, complete) => {
        setImmediate(() => complete(MessageQueueResult.Success, "later"));
      },
    });
    queue.add("m", onCompleted);
    queue.doWork();
    expect(completions).toEqual([]);
    await flush();
    expect(completions.map((c) => c.reason)).toEqual(["later"]);
  });

  it("whichever comes first wins: complete() before the Promise settles", async () => {
    const { queue, completions, onCompleted, callbackErrors } = harness({
      onProcessMessage: async (_message, complete) => {
        complete(MessageQueueResult.RetryableError, "first");
        throw new Error("after the fact");
      },
      maxRetryCount: 0,
    });
    queue.add("m", onCompleted);
    queue.doWork();
    await flush();
    expect(completions.map((c) => [c.result, c.reason])).toEqual([["Error", "first"]]);
    expect((callbackErrors[0] as Error).message).toBe("after the fact");
  });

  it("a rejection after a timeout is the processor reacting to the abort: ignored", async () => {
    const { queue, clock, completions, onCompleted, callbackErrors } = harness({
      maxProcessingTimeMs: 50,
      onProcessMessage: (_message, _complete, { signal }) =>
        new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
    });
    queue.add("m", onCompleted);
    queue.doWork();
    await clock.advance(50);
    queue.doWork();
    await flush();
    expect(completions.map((c) => c.result)).toEqual(["Timeout"]);
    expect(callbackErrors).toEqual([]);
  });

  it("a signal read only after the timeout is already aborted", async () => {
    const { queue, clock, calls } = harness({ maxProcessingTimeMs: 50 });
    queue.add("m");
    queue.doWork();
    await clock.advance(50);
    queue.doWork();
    const signal = calls[0]?.context.signal;
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toMatchObject({ code: "Timeout" });
  });

  it("one signal serves every attempt of a message and aborts when the message times out, even while it waits for a retry", async () => {
    const { queue, clock, calls, completions, onCompleted } = harness({
      maxRetryCount: 1,
      maxEnqueuedTimeMs: 100,
    });
    queue.add("m", onCompleted);
    queue.doWork();
    const first = calls[0]?.context.signal;
    calls[0]?.complete(MessageQueueResult.RetryableError);
    expect(first?.aborted).toBe(false);
    await clock.advance(100);
    queue.doWork();
    expect(completions.map((c) => c.result)).toEqual(["Timeout"]);
    expect(first?.aborted).toBe(true);
    expect(calls).toHaveLength(1);
  });

  it("the context of an attempt keeps its own attempt number after a retry", () => {
    const { queue, calls } = harness({ maxRetryCount: 1 });
    queue.add("m");
    queue.doWork();
    calls[0]?.complete(MessageQueueResult.RetryableError);
    queue.doWork();
    expect(calls.map((c) => c.context.attempt)).toEqual([1, 2]);
    expect(calls[0]?.context.signal).toBe(calls[1]?.context.signal);
  });

  it("a throwing completion callback is reported and never stops the other messages", () => {
    const { queue, calls, completions, onCompleted, callbackErrors } = harness();
    queue.add("a", () => {
      throw new Error("callback bug");
    });
    queue.add("b", onCompleted);
    queue.doWork();
    calls[0]?.complete(MessageQueueResult.Success);
    calls[1]?.complete(MessageQueueResult.Success);
    expect(completions.map((c) => c.message)).toEqual(["b"]);
    expect(callbackErrors.map((e) => (e as Error).message)).toEqual(["callback bug"]);
    expect(queue.isEmpty()).toBe(true);
  });

  it("without onCallbackError a throwing completion callback becomes a process warning", async () => {
    const warnings: Error[] = [];
    const listener = (warning: Error) => warnings.push(warning);
    process.on("warning", listener);
    try {
      const queue = new MessageQueue<string>({
        onProcessMessage: (_message, complete) => complete(MessageQueueResult.Success),
      });
      queue.add("m", () => {
        throw new Error("callback bug");
      });
      queue.doWork();
      await flush();
    } finally {
      process.off("warning", listener);
    }
    expect(warnings.map((w) => w.message)).toContain("callback bug");
  });

  it("isRetryable recognises RetryableError, retryable: true and transient QueueErrors only", () => {
    expect(isRetryable(new RetryableError("busy"))).toBe(true);
    expect(isRetryable({ retryable: true })).toBe(true);
    expect(isRetryable(new QueueError("Throttled", "slow down"))).toBe(true);
    expect(isRetryable(new QueueError("Validation", "bad"))).toBe(false);
    expect(isRetryable(new Error("plain"))).toBe(false);
    expect(isRetryable("busy")).toBe(false);
    expect(isRetryable(undefined)).toBe(false);
  });
});
