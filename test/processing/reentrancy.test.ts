import { describe, expect, it } from "vitest";
import type { Clock } from "../../src/core/clock.js";
import { type CompleteProcessing, MessageQueueResult, MessageState } from "../../src/processing/index.js";
import { harness } from "./harness.js";

/** A clock that a processor can move synchronously, in the middle of a tick. */
class SteppedClock implements Clock {
  time = 1_000;

  /** The time it was last set to. */
  now(): number {
    return this.time;
  }

  /** Never fires: these tests tick by hand. */
  setTimer() {
    return { cancel: () => undefined };
  }
}

describe("a processor that calls back into the queue while its message starts", () => {
  it("its message counts as in progress, and a synchronous completion leaves the queue empty", () => {
    const seen: Array<[number, boolean, string]> = [];
    const { queue, completions, onCompleted } = harness({
      onProcessMessage: (_message, complete) => {
        seen.push([queue.inProgressCount, queue.isEmpty(), handle.state]);
        complete(MessageQueueResult.Success);
        seen.push([queue.inProgressCount, queue.isEmpty(), handle.state]);
      },
    });
    const handle = queue.add("m", onCompleted);
    queue.doWork();
    expect(seen).toEqual([
      [1, false, MessageState.InProgress],
      [0, true, MessageState.Completed],
    ]);
    expect(completions.map((c) => c.result)).toEqual(["Success"]);
  });

  it("removeAll from the processor cancels its own message once and aborts its signal", () => {
    let signal: AbortSignal | undefined;
    let complete: CompleteProcessing | undefined;
    const { queue, completions, onCompleted } = harness({
      onProcessMessage: (message, done, context) => {
        complete = done;
        signal = context.signal;
        if (message === "first") queue.removeAll();
      },
    });
    queue.add("first", onCompleted);
    queue.add("second", onCompleted);
    queue.doWork();
    expect(completions.map((c) => [c.message, c.result])).toEqual([
      ["first", "Cancelled"],
      ["second", "Cancelled"],
    ]);
    expect(signal?.aborted).toBe(true);
    complete?.(MessageQueueResult.Success);
    expect(completions).toHaveLength(2);
    expect(queue.isEmpty()).toBe(true);
    expect(queue.inProgressCount).toBe(0);
  });

  it("a tick run by a processor starts what is pending, and both messages are tracked until completed", () => {
    const completes = new Map<string, CompleteProcessing>();
    const { queue, completions, onCompleted } = harness({
      onProcessMessage: (message, complete) => {
        completes.set(message, complete);
        if (message === "outer") {
          queue.add("inner", onCompleted);
          queue.doWork();
        }
      },
    });
    queue.add("outer", onCompleted);
    queue.doWork();
    expect([...completes.keys()]).toEqual(["outer", "inner"]);
    expect(queue.inProgressCount).toBe(2);
    completes.get("outer")?.(MessageQueueResult.Success);
    completes.get("inner")?.(MessageQueueResult.Error);
    expect(completions.map((c) => [c.message, c.result])).toEqual([
      ["outer", "Success"],
      ["inner", "Error"],
    ]);
    expect(queue.isEmpty()).toBe(true);
  });

  it("a retry asked for synchronously waits for the next tick, even when the processor ticks", () => {
    const attempts: Array<[string, number]> = [];
    const { queue, completions, onCompleted } = harness({
      maxRetryCount: 1,
      onProcessMessage: (message, complete, { attempt }) => {
        attempts.push([message, attempt]);
        if (attempt === 1) {
          complete(MessageQueueResult.RetryableError);
          queue.doWork();
        } else complete(MessageQueueResult.Success);
      },
    });
    queue.add("m", onCompleted);
    queue.doWork();
    expect(attempts).toEqual([
      ["m", 1],
      ["m", 2],
    ]);
    expect(completions.map((c) => c.result)).toEqual(["Success"]);
    expect(queue.isEmpty()).toBe(true);
  });

  it("an attempt still keeps its place in start order when a processor ticks: the older one times out first", () => {
    const clock = new SteppedClock();
    const { queue, completions, onCompleted } = harness({
      clock,
      maxProcessingTimeMs: 100,
      onProcessMessage: (message) => {
        if (message !== "outer") return;
        clock.time += 50;
        queue.add("inner", onCompleted);
        queue.doWork();
      },
    });
    queue.add("outer", onCompleted);
    queue.doWork();
    clock.time += 50;
    queue.doWork();
    expect(completions.map((c) => [c.message, c.result])).toEqual([["outer", "Timeout"]]);
    clock.time += 50;
    queue.doWork();
    expect(completions.map((c) => c.message)).toEqual(["outer", "inner"]);
  });

  it("an enqueue limit set by a processor covers the message it is processing", () => {
    const clock = new SteppedClock();
    const { queue, completions, onCompleted } = harness({
      clock,
      onProcessMessage: () => {
        queue.setMaxEnqueuedTimeMs(100);
      },
    });
    queue.add("m", onCompleted);
    queue.doWork();
    clock.time += 99;
    queue.doWork();
    expect(completions).toEqual([]);
    clock.time += 1;
    queue.doWork();
    expect(completions.map((c) => [c.message, c.result])).toEqual([["m", "Timeout"]]);
    expect(queue.isEmpty()).toBe(true);
  });

  it("a processing limit set by a processor covers the message it is processing", () => {
    const clock = new SteppedClock();
    const { queue, completions, onCompleted } = harness({
      clock,
      onProcessMessage: () => {
        queue.setMaxProcessingTimeMs(100);
      },
    });
    queue.add("m", onCompleted);
    queue.doWork();
    clock.time += 99;
    queue.doWork();
    expect(completions).toEqual([]);
    clock.time += 1;
    queue.doWork();
    expect(completions.map((c) => [c.message, c.result])).toEqual([["m", "Timeout"]]);
  });
});
