// What the official SDK showed the endpoint getting wrong, each driven through the unmodified SDK.
import { describe, expect, it } from "vitest";
import { VirtualClock } from "../../../src/core/clock.js";
import { MemoryStore } from "../../../src/engine/memory/memory-store.js";
import { QueueEngine } from "../../../src/engine/queue-engine.js";
import { startEndpoint } from "./harness.js";

const HOUR = 3_600_000;

/** An endpoint whose engine runs on virtual time, so a schedule an hour ahead falls due at once. */
async function onVirtualTime() {
  const clock = new VirtualClock();
  const engine = new QueueEngine(new MemoryStore(), { clock });
  return { clock, ...(await startEndpoint({ engine })) };
}

describe("the Service Bus endpoint under the official SDK: scheduled messages", () => {
  it("a scheduled message is enqueued at its scheduled time, and its time to live runs from then", async () => {
    const { clock, client } = await onVirtualTime();
    const at = new Date(clock.now() + HOUR);
    const sender = client.createSender("scheduled");
    await sender.scheduleMessages({ body: "by schedule", timeToLive: 60_000 }, at);
    await sender.sendMessages({ body: "by send", scheduledEnqueueTimeUtc: at, timeToLive: 60_000 });
    const receiver = client.createReceiver("scheduled");
    const peeked = await receiver.peekMessages(5);
    expect(peeked.map((message) => [message.body, message.state])).toEqual([
      ["by schedule", "scheduled"],
      ["by send", "scheduled"],
    ]);
    await clock.advance(HOUR);
    const due = await receiver.peekMessages(5, { fromSequenceNumber: peeked[0]!.sequenceNumber! });
    expect(due.map((message) => message.state)).toEqual(["active", "active"]);
    const received = await receiver.receiveMessages(2, { maxWaitTimeInMs: 2_000 });
    expect(received.map((message) => message.body)).toEqual(["by schedule", "by send"]);
    for (const message of received) {
      expect(message.enqueuedTimeUtc).toEqual(at);
      expect(message.scheduledEnqueueTimeUtc).toEqual(at);
      expect(message.timeToLive).toBe(60_000);
      expect(message.expiresAtUtc).toEqual(new Date(at.getTime() + 60_000));
    }
  });
});

describe("the Service Bus endpoint under the official SDK: message state", () => {
  it("a deferred message received by its sequence number reads as deferred", async () => {
    const { client } = await startEndpoint();
    await client.createSender("aside").sendMessages({ body: "set aside" });
    const receiver = client.createReceiver("aside");
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2_000 });
    expect(message!.state).toBe("active");
    await receiver.deferMessage(message!);
    const [deferred] = await receiver.receiveDeferredMessages([message!.sequenceNumber!]);
    expect(deferred).toMatchObject({ body: "set aside", state: "deferred" });
    const [peeked] = await receiver.peekMessages(1, { fromSequenceNumber: message!.sequenceNumber! });
    expect(peeked!.state).toBe("deferred");
    await receiver.completeMessage(deferred!);
    expect(await receiver.peekMessages(1, { fromSequenceNumber: message!.sequenceNumber! })).toEqual([]);
  });
});
