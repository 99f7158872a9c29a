import { describe, expect, it } from "vitest";
import { MessageQueueResult, MessageState } from "../../src/processing/index.js";
import { harness } from "./harness.js";

describe("removing everything (message_queue_remove_all)", () => {
  it("SRS_MESSAGE_QUEUE_09_026 removeAll on an empty or stopped queue returns without calling anything", async () => {
    const { queue, calls, completions, onCompleted } = harness();
    queue.removeAll();
    queue.add("m", onCompleted);
    await queue.stop();
    expect(completions).toHaveLength(1);
    queue.removeAll();
    expect(completions).toHaveLength(1);
    expect(calls).toHaveLength(0);
  });

  it("SRS_MESSAGE_QUEUE_09_027 removeAll empties both the pending and the in-progress list", () => {
    const { queue } = harness();
    queue.add("in progress");
    queue.doWork();
    queue.add("pending");
    expect([queue.pendingCount, queue.inProgressCount]).toEqual([1, 1]);
    queue.removeAll();
    expect([queue.pendingCount, queue.inProgressCount]).toEqual([0, 0]);
    expect(queue.isEmpty()).toBe(true);
  });

  it("SRS_MESSAGE_QUEUE_09_028 each removed message completes once with Cancelled, and a running attempt is aborted", () => {
    const { queue, calls, completions, onCompleted } = harness();
    queue.add("in progress", onCompleted, "ctx-1");
    queue.doWork();
    queue.add("pending", onCompleted, "ctx-2");
    const signal = calls[0]?.context.signal;
    queue.removeAll();
    expect(completions).toEqual([
      { message: "in progress", result: "Cancelled", reason: undefined, context: "ctx-1" },
      { message: "pending", result: "Cancelled", reason: undefined, context: "ctx-2" },
    ]);
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toMatchObject({ name: "AbortError" });
    calls[0]?.complete(MessageQueueResult.Success);
    queue.removeAll();
    expect(completions).toHaveLength(2);
  });

  it("SRS_MESSAGE_QUEUE_09_028 removeAll cancels in the seed's order: every in-progress message, then every pending one", () => {
    const { queue, calls, completions, onCompleted } = harness({ maxRetryCount: 1 });
    queue.add("first", onCompleted);
    queue.add("second", onCompleted);
    queue.doWork();
    calls[0]?.complete(MessageQueueResult.RetryableError);
    queue.add("third", onCompleted);
    queue.removeAll();
    expect(completions.map((c) => c.message)).toEqual(["second", "first", "third"]);
  });

  it("SRS_MESSAGE_QUEUE_09_029 removed messages are released: handles completed, no timer, nothing held", async () => {
    const { queue, clock } = harness();
    queue.start({ intervalMs: 50 });
    const handles = [queue.add("a"), queue.add("b")];
    await clock.advance(50);
    handles.push(queue.add("c"));
    expect(clock.pendingTimers).toBe(1);
    queue.removeAll();
    expect(handles.map((h) => h.state)).toEqual([
      MessageState.Completed,
      MessageState.Completed,
      MessageState.Completed,
    ]);
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(1_000);
    expect(queue.isEmpty()).toBe(true);
  });

  it("messages added by a Cancelled callback are kept and processed later", () => {
    const { queue, calls } = harness();
    queue.add("old", () => {
      queue.add("follow-up");
    });
    queue.removeAll();
    expect(queue.pendingCount).toBe(1);
    queue.doWork();
    expect(calls.map((c) => c.message)).toEqual(["follow-up"]);
  });
});
