// What the official SDK showed the endpoint getting wrong, each driven through the unmodified SDK.
import type { ServiceBusClient, ServiceBusReceivedMessage } from "@azure/service-bus";
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

/** Properties of every type a client sends, as the send path keeps them. */
const SENT = { kept: "as sent", replaced: "old", count: 1, ratio: 0.5, big: 2 ** 40 };

/** An endpoint with one message sent with {@link SENT} to the queue `edits`, received under peek-lock, and its receiver. */
async function receivedWithProperties() {
  const endpoint = await startEndpoint();
  await endpoint.client.createSender("edits").sendMessages({ body: "x", applicationProperties: SENT });
  const receiver = endpoint.client.createReceiver("edits");
  const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2_000 });
  return { ...endpoint, receiver, message: message! };
}

/** The first dead letter of the queue `edits`. */
async function firstDeadLetter(client: ServiceBusClient): Promise<ServiceBusReceivedMessage> {
  const dead = client.createReceiver("edits", { subQueueType: "deadLetter" });
  const [letter] = await dead.receiveMessages(1, { maxWaitTimeInMs: 2_000 });
  return letter!;
}

describe("the Service Bus endpoint under the official SDK: properties to modify", () => {
  it("abandon with properties to modify: the next delivery carries them over the sent ones, types kept", async () => {
    const { errors, receiver, message: first } = await receivedWithProperties();
    await receiver.abandonMessage(first, { replaced: "new", count: 2, ratio: 1.25, retried: true });
    const [second] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2_000 });
    expect(second!.deliveryCount).toBe(1);
    expect(second!.applicationProperties).toEqual({
      ...SENT,
      replaced: "new",
      count: 2,
      ratio: 1.25,
      retried: true,
    });
    await receiver.abandonMessage(second!, { count: 3 });
    const [third] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2_000 });
    expect(third!.applicationProperties).toMatchObject({ replaced: "new", count: 3, retried: true });
    await receiver.completeMessage(third!);
    expect(errors).toEqual([]);
  });

  it("defer with properties to modify: the message received by its sequence number carries them", async () => {
    const { errors, receiver, message } = await receivedWithProperties();
    await receiver.deferMessage(message, { replaced: "deferred", step: 1 });
    const [deferred] = await receiver.receiveDeferredMessages([message.sequenceNumber!]);
    expect(deferred!.applicationProperties).toEqual({ ...SENT, replaced: "deferred", step: 1 });
    const [peeked] = await receiver.peekMessages(1, { fromSequenceNumber: message.sequenceNumber! });
    expect(peeked!.applicationProperties).toEqual({ ...SENT, replaced: "deferred", step: 1 });
    await receiver.completeMessage(deferred!);
    expect(errors).toEqual([]);
  });

  it("dead-letter with custom properties: the dead letter carries them beside its reason and description", async () => {
    const { client, errors, receiver, message } = await receivedWithProperties();
    await receiver.deadLetterMessage(message, {
      deadLetterReason: "Unreadable",
      deadLetterErrorDescription: "not JSON",
      replaced: "dead",
      attempts: 4,
      poisoned: true,
    });
    const letter = await firstDeadLetter(client);
    expect(letter).toMatchObject({ deadLetterReason: "Unreadable", deadLetterErrorDescription: "not JSON" });
    const { DeadLetterReason, DeadLetterErrorDescription, ...properties } =
      letter.applicationProperties ?? {};
    expect([DeadLetterReason, DeadLetterErrorDescription]).toEqual(["Unreadable", "not JSON"]);
    expect(properties).toEqual({ ...SENT, replaced: "dead", attempts: 4, poisoned: true });
    expect(errors).toEqual([]);
  });

  it("a deferred message settled through $management: abandon, defer and dead-letter apply their properties to modify", async () => {
    const { client, errors, receiver, message } = await receivedWithProperties();
    const seq = message.sequenceNumber!;
    await receiver.deferMessage(message);
    const [first] = await receiver.receiveDeferredMessages([seq]);
    await receiver.abandonMessage(first!, { replaced: "abandoned", count: 2 });
    const [second] = await receiver.receiveDeferredMessages([seq]);
    expect(second!.applicationProperties).toEqual({ ...SENT, replaced: "abandoned", count: 2 });
    await receiver.deferMessage(second!, { replaced: "deferred again", flag: false });
    const [third] = await receiver.receiveDeferredMessages([seq]);
    expect(third!.applicationProperties).toEqual({
      ...SENT,
      replaced: "deferred again",
      count: 2,
      flag: false,
    });
    await receiver.deadLetterMessage(third!, {
      deadLetterReason: "Given up",
      deadLetterErrorDescription: "third time",
      attempts: 3,
    });
    const letter = await firstDeadLetter(client);
    expect(letter).toMatchObject({ deadLetterReason: "Given up", deadLetterErrorDescription: "third time" });
    expect(letter.applicationProperties).toMatchObject({
      replaced: "deferred again",
      flag: false,
      attempts: 3,
    });
    expect(errors).toEqual([]);
  });
});
