import { describe, expect, it } from "vitest";
import { MessageQueueResult } from "../../src/processing/index.js";
import { harness } from "./harness.js";

describe("asking whether the queue is empty (message_queue_is_empty)", () => {
  it("SRS_MESSAGE_QUEUE_09_030 isEmpty returns the answer instead of writing through a pointer, and works on a stopped queue", async () => {
    const { queue } = harness();
    expect(typeof queue.isEmpty()).toBe("boolean");
    queue.add("m");
    await queue.stop();
    expect(queue.isEmpty()).toBe(true);
  });

  it("SRS_MESSAGE_QUEUE_09_031 isEmpty is true when neither list holds a message", () => {
    const { queue, calls } = harness();
    expect(queue.isEmpty()).toBe(true);
    queue.add("m");
    queue.doWork();
    calls[0]?.complete(MessageQueueResult.Success);
    expect(queue.isEmpty()).toBe(true);
  });

  it("SRS_MESSAGE_QUEUE_09_032 isEmpty is false while a message is pending or in progress", () => {
    const { queue } = harness();
    queue.add("m");
    expect(queue.isEmpty()).toBe(false);
    queue.doWork();
    expect(queue.pendingCount).toBe(0);
    expect(queue.isEmpty()).toBe(false);
  });

  it("SRS_MESSAGE_QUEUE_09_033 isEmpty never fails and changes nothing", () => {
    const { queue, calls } = harness();
    queue.add("m");
    for (let i = 0; i < 3; i++) expect(queue.isEmpty()).toBe(false);
    expect(queue.pendingCount).toBe(1);
    expect(calls).toHaveLength(0);
  });
});
