import { describe, expect, it } from "vitest";
import { VirtualClock } from "../../src/core/clock.js";
import { MessageQueue, type MessageQueueOptions, MessageQueueResult } from "../../src/processing/index.js";
import { expectQueueError, harness } from "./harness.js";

const noop = () => undefined;

describe("creating a MessageQueue (message_queue_create)", () => {
  it("SRS_MESSAGE_QUEUE_09_001 missing options throw Validation", () => {
    for (const options of [undefined, null, 42, "options"])
      expectQueueError(
        () => new MessageQueue(options as unknown as MessageQueueOptions<string>),
        "Validation",
      );
  });

  it("SRS_MESSAGE_QUEUE_09_002 a missing or non-function onProcessMessage throws Validation", () => {
    expectQueueError(() => new MessageQueue({} as MessageQueueOptions<string>), "Validation");
    expectQueueError(
      () => new MessageQueue({ onProcessMessage: "process" } as unknown as MessageQueueOptions<string>),
      "Validation",
    );
  });

  it("SRS_MESSAGE_QUEUE_09_004 each queue is an instance with state of its own", () => {
    const first = harness();
    const second = new MessageQueue<string>({ onProcessMessage: noop });
    first.queue.add("only in the first");
    expect(first.queue.isEmpty()).toBe(false);
    expect(second.isEmpty()).toBe(true);
    expect(second).not.toBe(first.queue);
  });

  it("SRS_MESSAGE_QUEUE_09_005 construction either returns a whole queue or throws: no half-made queue", () => {
    let created: MessageQueue<string> | undefined;
    expectQueueError(() => {
      created = new MessageQueue<string>({ onProcessMessage: noop, maxRetryCount: -1 });
    }, "Validation");
    expect(created).toBeUndefined();
  });

  it("SRS_MESSAGE_QUEUE_09_006 a new queue has an empty pending list", () => {
    const { queue } = harness();
    expect(queue.pendingCount).toBe(0);
  });

  it("SRS_MESSAGE_QUEUE_09_007 the pending list belongs to its queue: messages pending in one are not in another", () => {
    const first = harness();
    const second = harness();
    first.queue.add("a");
    first.queue.add("b");
    expect(first.queue.pendingCount).toBe(2);
    expect(second.queue.pendingCount).toBe(0);
  });

  it("SRS_MESSAGE_QUEUE_09_008 a new queue has an empty in-progress list", () => {
    const { queue } = harness();
    expect(queue.inProgressCount).toBe(0);
  });

  it("SRS_MESSAGE_QUEUE_09_009 the in-progress list belongs to its queue", () => {
    const first = harness();
    const second = harness();
    first.queue.add("a");
    first.queue.doWork();
    second.queue.doWork();
    expect(first.queue.inProgressCount).toBe(1);
    expect(second.queue.inProgressCount).toBe(0);
    expect(second.calls).toHaveLength(0);
  });

  it("SRS_MESSAGE_QUEUE_09_010 every setting given is saved, the others default to 0", async () => {
    const clock = new VirtualClock();
    const seen: string[] = [];
    const queue = new MessageQueue<string>({
      clock,
      onProcessMessage: (message) => {
        seen.push(message);
      },
      maxEnqueuedTimeMs: 60_000,
      maxProcessingTimeMs: 10_000,
      maxRetryCount: 3,
    });
    expect(queue.retrieveOptions()).toEqual({
      maxEnqueuedTimeMs: 60_000,
      maxProcessingTimeMs: 10_000,
      maxRetryCount: 3,
    });
    expect(new MessageQueue<string>({ onProcessMessage: noop }).retrieveOptions()).toEqual({
      maxEnqueuedTimeMs: 0,
      maxProcessingTimeMs: 0,
      maxRetryCount: 0,
    });
    queue.add("x");
    queue.doWork();
    expect(seen).toEqual(["x"]);
    // The injected clock is the one used: the processing limit runs on its time.
    await clock.advance(10_000);
    queue.doWork();
    expect(queue.isEmpty()).toBe(true);
  });

  it("SRS_MESSAGE_QUEUE_09_011 a failed construction starts nothing: no timer, no callback", () => {
    const clock = new VirtualClock();
    const calls: unknown[] = [];
    const bad: Partial<MessageQueueOptions<string>>[] = [
      { maxEnqueuedTimeMs: -1 },
      { maxProcessingTimeMs: 1.5 },
      { maxRetryCount: Number.NaN },
      { maxEnqueuedTimeMs: "10" as unknown as number },
      { clock: { now: () => 0 } as unknown as VirtualClock },
      { onCallbackError: 1 as unknown as () => void },
    ];
    for (const options of bad)
      expectQueueError(
        () =>
          new MessageQueue<string>({ clock, onProcessMessage: (message) => calls.push(message), ...options }),
        "Validation",
      );
    expect(clock.pendingTimers).toBe(0);
    expect(calls).toEqual([]);
  });

  it("SRS_MESSAGE_QUEUE_09_012 a successful construction returns a working queue", () => {
    const { queue, onCompleted, completions, calls } = harness();
    expect(queue).toBeInstanceOf(MessageQueue);
    queue.add("hello", onCompleted);
    queue.doWork();
    calls[0]?.complete(MessageQueueResult.Success);
    expect(completions.map((c) => [c.message, c.result])).toEqual([["hello", "Success"]]);
  });
});
