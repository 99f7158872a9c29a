import { describe, expect, it } from "vitest";
import { QueueError } from "../../src/core/errors.js";
import { MessageQueue, MessageQueueResult, MessageState } from "../../src/processing/index.js";
import { CountingClock, expectQueueError, harness } from "./harness.js";

describe("adding messages (message_queue_add)", () => {
  it("SRS_MESSAGE_QUEUE_09_016 a missing message or a non-function callback throws Validation; a stopped queue throws ClientClosed", async () => {
    const { queue } = harness<string | null | undefined>();
    expectQueueError(() => queue.add(undefined), "Validation");
    expectQueueError(() => queue.add(null), "Validation");
    expectQueueError(() => queue.add("m", "callback" as unknown as () => void), "Validation");
    expect(queue.isEmpty()).toBe(true);
    await queue.stop();
    expectQueueError(() => queue.add("m"), "ClientClosed");
  });

  it("SRS_MESSAGE_QUEUE_09_017 add keeps the message in a handle of its own", () => {
    const { queue } = harness<{ id: number }>();
    const message = { id: 1 };
    const first = queue.add(message);
    const second = queue.add(message);
    expect(first.message).toBe(message);
    expect(first).not.toBe(second);
    expect(first.state).toBe(MessageState.Pending);
    expect(first.attempts).toBe(0);
  });

  it("SRS_MESSAGE_QUEUE_09_018 a refused add holds nothing: no message, no timer", () => {
    const { queue, clock } = harness<string | undefined>();
    queue.start({ intervalMs: 10 });
    expectQueueError(() => queue.add(undefined), "Validation");
    expect(queue.isEmpty()).toBe(true);
    expect(clock.pendingTimers).toBe(0);
  });

  it("SRS_MESSAGE_QUEUE_09_019 the enqueue time is read from the clock when the message is added", async () => {
    const { queue, clock, onCompleted, completions } = harness({ maxEnqueuedTimeMs: 1_000 });
    queue.add("early", onCompleted);
    await clock.advance(600);
    queue.add("late", onCompleted);
    await clock.advance(400);
    queue.doWork();
    expect(completions.map((c) => [c.message, c.result])).toEqual([["early", "Timeout"]]);
    await clock.advance(599);
    queue.doWork();
    expect(completions).toHaveLength(1);
    await clock.advance(1);
    queue.doWork();
    expect(completions.map((c) => c.message)).toEqual(["early", "late"]);
  });

  it("SRS_MESSAGE_QUEUE_09_020 when the clock fails, add throws and adds nothing", () => {
    const clock = new CountingClock();
    const queue = new MessageQueue<string>({
      clock,
      onProcessMessage: () => undefined,
      maxEnqueuedTimeMs: 100,
    });
    clock.failing = true;
    const error = expectQueueError(() => queue.add("m"), "Configuration");
    expect((error.cause as Error).message).toBe("clock unavailable");
    expect(queue.isEmpty()).toBe(true);
  });

  it("SRS_MESSAGE_QUEUE_09_021 an added message waits in the pending list until a tick", () => {
    const { queue, calls } = harness();
    const handle = queue.add("m");
    expect(queue.pendingCount).toBe(1);
    expect(queue.inProgressCount).toBe(0);
    expect(handle.state).toBe(MessageState.Pending);
    expect(calls).toHaveLength(0);
    queue.doWork();
    expect(calls.map((c) => c.message)).toEqual(["m"]);
  });

  it("SRS_MESSAGE_QUEUE_09_022 an add refused while draining leaves the pending list as it was", async () => {
    const { queue, calls, clock } = harness();
    queue.add("first");
    const stopped = queue.stop({ drain: true });
    expect(queue.inProgressCount).toBe(1);
    expectQueueError(() => queue.add("second"), "ClientClosed");
    expect(queue.pendingCount).toBe(0);
    calls[0]?.complete(MessageQueueResult.Success);
    await stopped;
    expect(calls.map((c) => c.message)).toEqual(["first"]);
    expect(clock.pendingTimers).toBe(0);
  });

  it("SRS_MESSAGE_QUEUE_09_023 the processor receives the very message that was added", () => {
    const { queue, calls } = harness<{ id: number }>();
    const message = { id: 7 };
    queue.add(message);
    queue.doWork();
    expect(calls[0]?.message).toBe(message);
  });

  it("SRS_MESSAGE_QUEUE_09_024 a failed add leaves nothing behind: no completion, no message, no timer", async () => {
    const clock = new CountingClock();
    const completions: unknown[] = [];
    const queue = new MessageQueue<string>({
      clock,
      onProcessMessage: () => undefined,
      maxEnqueuedTimeMs: 100,
    });
    queue.start({ intervalMs: 10 });
    clock.failing = true;
    expectQueueError(() => queue.add("m", () => completions.push("m")), "Configuration");
    clock.failing = false;
    await clock.inner.advance(1_000);
    queue.doWork();
    expect(queue.isEmpty()).toBe(true);
    expect(completions).toEqual([]);
    expect(clock.inner.pendingTimers).toBe(0);
  });

  it("SRS_MESSAGE_QUEUE_09_025 a successful add returns the handle; addAsync resolves with the outcome", async () => {
    const { queue, calls } = harness();
    const handle = queue.add("m");
    expect(handle.message).toBe("m");
    const outcome = queue.addAsync("async");
    queue.doWork();
    calls[1]?.complete(MessageQueueResult.Error, "broken");
    await expect(outcome).resolves.toEqual({ result: "Error", reason: "broken" });
  });

  it("addAsync rejects with the error add would throw", async () => {
    const { queue } = harness<string | undefined>();
    await expect(queue.addAsync(undefined)).rejects.toBeInstanceOf(QueueError);
    await queue.stop();
    await expect(queue.addAsync("late")).rejects.toMatchObject({ code: "ClientClosed" });
  });

  it("the completion callback gets the context given to add", () => {
    const { queue, calls } = harness();
    const seen: Array<{ attempt: number }> = [];
    const context = { attempt: 0 };
    queue.add("m", (_message, _result, _reason, received) => seen.push(received), context);
    queue.doWork();
    calls[0]?.complete(MessageQueueResult.Success);
    expect(seen[0]).toBe(context);
  });
});
