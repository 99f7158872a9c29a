import type { ServiceBusReceivedMessage } from "@azure/service-bus";
import { describe, expect, it } from "vitest";
import { MAX_MESSAGE_BYTES } from "../../../src/server/servicebus/servicebus-server.js";
import { codeOf, createQueue, startEndpoint } from "./harness.js";

const bodies = (messages: readonly ServiceBusReceivedMessage[]) => messages.map((message) => message.body);

describe("the Service Bus endpoint under the official SDK: messages", () => {
  it("sends single messages and batches, and every property comes back as sent", async () => {
    const { client } = await startEndpoint();
    const sender = client.createSender("orders");
    await sender.sendMessages({
      body: { order: 42, lines: ["a", "b"] },
      messageId: "m-1",
      correlationId: "c-1",
      contentType: "application/json",
      subject: "order.placed",
      to: "billing",
      replyTo: "replies",
      replyToSessionId: "r-1",
      timeToLive: 3_600_000,
      applicationProperties: { text: "é ü", int: 7, negative: -3, double: 1.5, yes: true, big: 2 ** 40 },
    });
    await sender.sendMessages([{ body: "plain text" }, { body: Buffer.from([0, 1, 2, 255]) }]);
    const batch = await sender.createMessageBatch();
    expect(batch.tryAddMessage({ body: "in a batch" })).toBe(true);
    await sender.sendMessages(batch);
    const receiver = client.createReceiver("orders");
    const received = await receiver.receiveMessages(10, { maxWaitTimeInMs: 2_000 });
    expect(bodies(received)).toEqual([
      { order: 42, lines: ["a", "b"] },
      "plain text",
      Buffer.from([0, 1, 2, 255]),
      "in a batch",
    ]);
    const [first] = received;
    expect(first).toMatchObject({
      messageId: "m-1",
      correlationId: "c-1",
      contentType: "application/json",
      subject: "order.placed",
      to: "billing",
      replyTo: "replies",
      replyToSessionId: "r-1",
      timeToLive: 3_600_000,
      deliveryCount: 0,
      applicationProperties: { text: "é ü", int: 7, negative: -3, double: 1.5, yes: true, big: 2 ** 40 },
    });
    expect(first!.enqueuedTimeUtc).toBeInstanceOf(Date);
    expect(first!.lockedUntilUtc!.getTime()).toBeGreaterThan(Date.now());
    expect(first!.lockToken).toMatch(/^[0-9a-f-]{36}$/);
    const sequenceNumbers = received.map((message) => Number(message.sequenceNumber));
    expect([...sequenceNumbers].sort((a, b) => a - b)).toEqual(sequenceNumbers);
    for (const message of received) await receiver.completeMessage(message);
    expect(await receiver.receiveMessages(10, { maxWaitTimeInMs: 200 })).toEqual([]);
  });

  it("AMQP value and sequence bodies, and the partition key, come back as sent", async () => {
    const { client } = await startEndpoint();
    const sender = client.createSender("typed");
    // A message with a bodyType is the SDK's raw AMQP message, which has no partitionKey field.
    await sender.sendMessages({ body: { nested: [1, "two"] }, bodyType: "value" });
    await sender.sendMessages({ body: [[1, 2], ["three"]], bodyType: "sequence" });
    await sender.sendMessages({ body: "keyed", partitionKey: "p-1" });
    const received = await client.createReceiver("typed").receiveMessages(3, { maxWaitTimeInMs: 2_000 });
    expect(received.map((message) => [message.body, message._rawAmqpMessage.bodyType])).toEqual([
      [{ nested: [1, "two"] }, "value"],
      [[[1, 2], ["three"]], "sequence"],
      ["keyed", "data"],
    ]);
    expect(received[2]!.partitionKey).toBe("p-1");
  });

  it("a date application property comes back as the SDK gives dates: milliseconds since the epoch", async () => {
    const { client } = await startEndpoint();
    await client
      .createSender("dates")
      .sendMessages({ body: "d", applicationProperties: { at: new Date(1_000) } });
    const [message] = await client.createReceiver("dates").receiveMessages(1, { maxWaitTimeInMs: 2_000 });
    expect(message!.applicationProperties).toEqual({ at: 1_000 });
  });

  it("abandon delivers again with the delivery count one higher; dead-letter moves to the sub-queue with its reason", async () => {
    const { client } = await startEndpoint();
    await client.createSender("work").sendMessages([{ body: "retry me" }, { body: "poison" }]);
    const receiver = client.createReceiver("work");
    const [retry, poison] = await receiver.receiveMessages(2, { maxWaitTimeInMs: 2_000 });
    await receiver.abandonMessage(retry!);
    await receiver.deadLetterMessage(poison!, {
      deadLetterReason: "Unreadable",
      deadLetterErrorDescription: "not JSON",
    });
    const [again] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2_000 });
    expect(again).toMatchObject({ body: "retry me", deliveryCount: 1 });
    await receiver.completeMessage(again!);
    const dead = client.createReceiver("work", { subQueueType: "deadLetter" });
    const [letter] = await dead.receiveMessages(1, { maxWaitTimeInMs: 2_000 });
    expect(letter).toMatchObject({
      body: "poison",
      deadLetterReason: "Unreadable",
      deadLetterErrorDescription: "not JSON",
      deadLetterSource: "work",
    });
    await dead.completeMessage(letter!);
    expect(await dead.receiveMessages(1, { maxWaitTimeInMs: 200 })).toEqual([]);
  });

  it("defers a message, receives it by sequence number, and settles it", async () => {
    const { client } = await startEndpoint();
    await client.createSender("later").sendMessages([{ body: "set aside" }, { body: "next" }]);
    const receiver = client.createReceiver("later");
    const [aside] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2_000 });
    await receiver.deferMessage(aside!);
    const [next] = await receiver.receiveMessages(5, { maxWaitTimeInMs: 500 });
    expect(next!.body).toBe("next");
    await receiver.completeMessage(next!);
    const peeked = await receiver.peekMessages(10, { fromSequenceNumber: aside!.sequenceNumber! });
    expect(peeked.map((message) => [message.body, message.state])).toEqual([["set aside", "deferred"]]);
    const [deferred] = await receiver.receiveDeferredMessages([aside!.sequenceNumber!]);
    expect(deferred).toMatchObject({ body: "set aside", sequenceNumber: aside!.sequenceNumber });
    await receiver.completeMessage(deferred!);
    expect(await codeOf(receiver.receiveDeferredMessages([aside!.sequenceNumber!]))).toBe("MessageNotFound");
  });

  it("settles by lock token through $management once the receiving link is gone", async () => {
    const { client, engine } = await startEndpoint();
    await client.createSender("handover").sendMessages([{ body: "complete me" }, { body: "dead-letter me" }]);
    const first = client.createReceiver("handover");
    const [done, dead] = await first.receiveMessages(2, { maxWaitTimeInMs: 1_000 });
    await first.close();
    const second = client.createReceiver("handover");
    await second.completeMessage(done!);
    await second.deadLetterMessage(dead!, {
      deadLetterReason: "handed over",
      deadLetterErrorDescription: "by token",
    });
    expect(engine.stats("handover")).toMatchObject({ active: 0, inFlight: 0, deadLettered: 1 });
    expect(await codeOf(second.completeMessage(done!))).toBe("MessageLockLost");
  });

  it("schedules a message, shows it to a peek as scheduled, and cancels it", async () => {
    const { client } = await startEndpoint();
    const sender = client.createSender("scheduled");
    const [sequence] = await sender.scheduleMessages({ body: "tomorrow" }, new Date(Date.now() + 86_400_000));
    const receiver = client.createReceiver("scheduled");
    const peeked = await receiver.peekMessages(5, { fromSequenceNumber: sequence! });
    expect(peeked.map((message) => [message.body, message.state])).toEqual([["tomorrow", "scheduled"]]);
    expect(peeked[0]!.scheduledEnqueueTimeUtc!.getTime()).toBeGreaterThan(Date.now());
    expect(await receiver.receiveMessages(1, { maxWaitTimeInMs: 200 })).toEqual([]);
    await sender.cancelScheduledMessages([sequence!]);
    expect(await receiver.peekMessages(5, { fromSequenceNumber: sequence! })).toEqual([]);
  });

  it("a message scheduled a moment ahead is delivered once its time comes", async () => {
    const { client } = await startEndpoint();
    await client
      .createSender("soon")
      .sendMessages({ body: "soon", scheduledEnqueueTimeUtc: new Date(Date.now() + 300) });
    const receiver = client.createReceiver("soon");
    const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 5_000 });
    expect(message!.body).toBe("soon");
  });

  it("peeks without locking, page after page, from the next sequence number", async () => {
    const { client } = await startEndpoint();
    await client
      .createSender("browse")
      .sendMessages(Array.from({ length: 5 }, (_, i) => ({ body: `m${i}` })));
    const receiver = client.createReceiver("browse");
    expect(bodies(await receiver.peekMessages(3))).toEqual(["m0", "m1", "m2"]);
    expect(bodies(await receiver.peekMessages(3))).toEqual(["m3", "m4"]);
    expect(await receiver.peekMessages(3)).toEqual([]);
    const received = await receiver.receiveMessages(10, { maxWaitTimeInMs: 1_000 });
    expect(received.map((message) => message.deliveryCount)).toEqual([0, 0, 0, 0, 0]);
  });

  it("one receiver takes and settles more messages than rhea's session buffer holds (2,048)", async () => {
    const { client, errors } = await startEndpoint();
    const sender = client.createSender("many");
    for (let i = 0; i < 2_500; i += 250)
      await sender.sendMessages(Array.from({ length: 250 }, (_, j) => ({ body: i + j })));
    const receiver = client.createReceiver("many");
    let settled = 0;
    while (settled < 2_500) {
      const batch = await receiver.receiveMessages(250, { maxWaitTimeInMs: 2_000 });
      expect(batch.length).toBeGreaterThan(0);
      await Promise.all(batch.map((message) => receiver.completeMessage(message)));
      settled += batch.length;
    }
    expect(settled).toBe(2_500);
    expect(errors).toEqual([]);
  });

  it("receive-and-delete removes each message as it is delivered", async () => {
    const { client, engine } = await startEndpoint();
    await client.createSender("gone").sendMessages([{ body: "a" }, { body: "b" }]);
    const receiver = client.createReceiver("gone", { receiveMode: "receiveAndDelete" });
    expect(bodies(await receiver.receiveMessages(5, { maxWaitTimeInMs: 1_000 }))).toEqual(["a", "b"]);
    expect(engine.stats("gone")).toMatchObject({ active: 0, inFlight: 0 });
  });

  it("an empty receive returns [] after its wait, and the same receiver then gets what is sent", async () => {
    const { client } = await startEndpoint();
    const receiver = client.createReceiver("quiet");
    const started = Date.now();
    expect(await receiver.receiveMessages(5, { maxWaitTimeInMs: 300 })).toEqual([]);
    expect(Date.now() - started).toBeLessThan(3_000);
    await client.createSender("quiet").sendMessages({ body: "finally" });
    expect(bodies(await receiver.receiveMessages(5, { maxWaitTimeInMs: 2_000 }))).toEqual(["finally"]);
  });

  it("subscribe() streams messages to a handler as they come", async () => {
    const { client } = await startEndpoint();
    const receiver = client.createReceiver("stream");
    const seen: unknown[] = [];
    const subscription = receiver.subscribe(
      {
        processMessage: async (message) => void seen.push(message.body),
        processError: async () => undefined,
      },
      { maxConcurrentCalls: 2 },
    );
    await client.createSender("stream").sendMessages([{ body: 1 }, { body: 2 }, { body: 3 }]);
    await expect.poll(() => seen.length).toBe(3);
    await subscription.close();
    expect(seen).toEqual([1, 2, 3]);
  });

  it("renews a message lock; a lock that has ended is MessageLockLost", async () => {
    const { client, engine } = await startEndpoint();
    createQueue(engine, "short", { lockDurationMs: 600 });
    await client.createSender("short").sendMessages([{ body: "renewed" }, { body: "lost" }]);
    const receiver = client.createReceiver("short", { maxAutoLockRenewalDurationInMs: 0 });
    const [renewed, lost] = await receiver.receiveMessages(2, { maxWaitTimeInMs: 1_000 });
    const until = await receiver.renewMessageLock(renewed!);
    expect(until.getTime()).toBeGreaterThan(renewed!.lockedUntilUtc!.getTime() - 1);
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(await codeOf(receiver.completeMessage(lost!))).toBe("MessageLockLost");
    const [back] = await receiver.receiveMessages(5, { maxWaitTimeInMs: 1_000 });
    expect(back).toMatchObject({ body: "renewed", deliveryCount: 1 });
  });

  it("dead-letters a message once its deliveries reach the queue's maximum", async () => {
    const { client, engine } = await startEndpoint();
    createQueue(engine, "fragile", { maxDeliveryCount: 2 });
    await client.createSender("fragile").sendMessages({ body: "fails" });
    const receiver = client.createReceiver("fragile");
    for (let i = 0; i < 2; i++) {
      const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 1_000 });
      await receiver.abandonMessage(message!);
    }
    expect(await receiver.receiveMessages(1, { maxWaitTimeInMs: 200 })).toEqual([]);
    const [letter] = await client
      .createReceiver("fragile", { subQueueType: "deadLetter" })
      .receiveMessages(1, { maxWaitTimeInMs: 1_000 });
    expect(letter).toMatchObject({ body: "fails", deadLetterReason: "MaxDeliveryCountExceeded" });
  });

  it("an expired message is never delivered; with dead-lettering on expiry it goes to the sub-queue", async () => {
    const { client, engine } = await startEndpoint();
    createQueue(engine, "perishable", { deadLetteringOnMessageExpiration: true });
    await client
      .createSender("perishable")
      .sendMessages([{ body: "stale", timeToLive: 100 }, { body: "fresh" }]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const receiver = client.createReceiver("perishable");
    expect(bodies(await receiver.receiveMessages(5, { maxWaitTimeInMs: 500 }))).toEqual(["fresh"]);
    const [letter] = await client
      .createReceiver("perishable", { subQueueType: "deadLetter" })
      .receiveMessages(1, { maxWaitTimeInMs: 1_000 });
    expect(letter).toMatchObject({ body: "stale", deadLetterReason: "TTLExpiredException" });
  });
});

describe("the Service Bus endpoint under the official SDK: sizes", () => {
  it("batches are sized from the limit the sender's attach announces", async () => {
    const { client } = await startEndpoint();
    const batch = await client.createSender("sized").createMessageBatch();
    expect(batch.maxSizeInBytes).toBe(MAX_MESSAGE_BYTES);
    let added = 0;
    while (batch.tryAddMessage({ body: Buffer.alloc(100_000) })) added++;
    expect(added).toBeGreaterThan(5);
    expect(added).toBeLessThan(11);
  });

  it("a single message over the limit is MessageSizeExceeded", async () => {
    const { client } = await startEndpoint();
    expect(
      await codeOf(client.createSender("sized").sendMessages({ body: Buffer.alloc(MAX_MESSAGE_BYTES + 1) })),
    ).toBe("MessageSizeExceeded");
  });
});

describe("the Service Bus endpoint under the official SDK: entities and keys", () => {
  it("an unknown entity is MessagingEntityNotFound when queues are not created on attach", async () => {
    const { client } = await startEndpoint({ createQueues: false });
    expect(await codeOf(client.createSender("nowhere").sendMessages({ body: "x" }))).toBe(
      "MessagingEntityNotFound",
    );
    expect(await codeOf(client.createReceiver("nowhere").receiveMessages(1, { maxWaitTimeInMs: 500 }))).toBe(
      "MessagingEntityNotFound",
    );
  });

  it("names are matched without case, and the dead-letter sub-queue by the SDK's spelling", async () => {
    const { client, engine } = await startEndpoint();
    createQueue(engine, "Orders");
    await client.createSender("orders").sendMessages({ body: "any case" });
    const [message] = await client.createReceiver("ORDERS").receiveMessages(1, { maxWaitTimeInMs: 1_000 });
    expect(message!.body).toBe("any case");
    expect(engine.listQueues().map((queue) => queue.name)).toEqual(["Orders"]);
  });

  it("a wrong SAS key is UnauthorizedAccess; without auth any key is accepted", async () => {
    const { connectionString } = await startEndpoint();
    const { ServiceBusClient } = await import("@azure/service-bus");
    const intruder = new ServiceBusClient(
      connectionString({ keyName: "RootManageSharedAccessKey", key: "wrong" }),
      {
        retryOptions: { maxRetries: 0, timeoutInMs: 3_000 },
      },
    );
    expect(await codeOf(intruder.createSender("orders").sendMessages({ body: "x" }))).toBe(
      "UnauthorizedAccess",
    );
    const other = new ServiceBusClient(connectionString({ keyName: "OtherKey", key: "SAS_KEY_VALUE" }), {
      retryOptions: { maxRetries: 0, timeoutInMs: 3_000 },
    });
    expect(await codeOf(other.createSender("orders").sendMessages({ body: "x" }))).toBe("UnauthorizedAccess");
    await intruder.close();
    await other.close();
    const open = await startEndpoint({ sasKey: null });
    const anyone = new ServiceBusClient(open.connectionString({ keyName: "anyone", key: "anything" }), {
      retryOptions: { maxRetries: 0, timeoutInMs: 3_000 },
    });
    await anyone.createSender("orders").sendMessages({ body: "welcome" });
    expect(open.engine.stats("orders").active).toBe(1);
    await anyone.close();
  });

  it("sending to a dead-letter sub-queue is refused", async () => {
    const { client } = await startEndpoint();
    await client.createSender("orders").sendMessages({ body: "x" });
    const code = await codeOf(client.createSender("orders/$DeadLetterQueue").sendMessages({ body: "y" }));
    expect(code).not.toBe("no error");
  });
});
