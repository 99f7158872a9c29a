import { describe, expect, it } from "vitest";
import { codeOf, createQueue, type Endpoint, startEndpoint } from "./harness.js";

/** An endpoint with a session queue `jobs` holding three messages of session `a` and one of `b`. */
async function withSessions(): Promise<Endpoint> {
  const endpoint = await startEndpoint();
  createQueue(endpoint.engine, "jobs", { requiresSession: true });
  await endpoint.client.createSender("jobs").sendMessages([
    { body: "a1", sessionId: "a" },
    { body: "b1", sessionId: "b" },
    { body: "a2", sessionId: "a" },
    { body: "a3", sessionId: "a" },
  ]);
  return endpoint;
}

describe("the Service Bus endpoint under the official SDK: sessions", () => {
  it("accepts a session by id and hands its messages over in order, with its lock time", async () => {
    const { client } = await withSessions();
    const session = await client.acceptSession("jobs", "a");
    expect(session.sessionId).toBe("a");
    expect(session.sessionLockedUntilUtc!.getTime()).toBeGreaterThan(Date.now());
    const messages = await session.receiveMessages(10, { maxWaitTimeInMs: 1_000 });
    expect(messages.map((message) => [message.body, message.sessionId])).toEqual([
      ["a1", "a"],
      ["a2", "a"],
      ["a3", "a"],
    ]);
    for (const message of messages) await session.completeMessage(message);
    await session.close();
  });

  it("keeps a session's state, renews its lock, and frees it on close for the next receiver", async () => {
    const { client, connectionString } = await withSessions();
    const session = await client.acceptSession("jobs", "a");
    expect(await session.getSessionState()).toBeNull();
    await session.setSessionState({ step: "charged" });
    expect(await session.getSessionState()).toEqual({ step: "charged" });
    const before = session.sessionLockedUntilUtc!.getTime();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const renewed = await session.renewSessionLock();
    expect(renewed.getTime()).toBeGreaterThan(before);
    const { ServiceBusClient } = await import("@azure/service-bus");
    const other = new ServiceBusClient(connectionString(), {
      retryOptions: { maxRetries: 0, timeoutInMs: 3_000 },
    });
    expect(await codeOf(other.acceptSession("jobs", "a"))).toBe("SessionCannotBeLocked");
    await session.close();
    const next = await other.acceptSession("jobs", "a");
    expect(await next.getSessionState()).toEqual({ step: "charged" });
    await next.close();
    await other.close();
  });

  it("accepts the next session with messages, and says when none is free", async () => {
    const { client } = await withSessions();
    const first = await client.acceptNextSession("jobs");
    const second = await client.acceptNextSession("jobs");
    expect([first.sessionId, second.sessionId].sort()).toEqual(["a", "b"]);
    expect(await codeOf(client.acceptNextSession("jobs", { maxAutoLockRenewalDurationInMs: 0 }))).toMatch(
      /ServiceTimeout|SessionCannotBeLocked/,
    );
    await first.close();
    await second.close();
  });

  it("an abandoned session message comes first again, its delivery counted", async () => {
    const { client } = await withSessions();
    const session = await client.acceptSession("jobs", "a");
    const [a1] = await session.receiveMessages(1, { maxWaitTimeInMs: 1_000 });
    await session.abandonMessage(a1!);
    const [again] = await session.receiveMessages(1, { maxWaitTimeInMs: 1_000 });
    expect(again).toMatchObject({ body: "a1", deliveryCount: 1 });
    await session.completeMessage(again!);
    await session.close();
  });

  it("a session receiver on a queue without sessions, and a message without a session on one with them, are refused", async () => {
    const { client } = await withSessions();
    await client.createSender("plain").sendMessages({ body: "x" });
    expect(await codeOf(client.acceptSession("plain", "a"))).not.toBe("no error");
    expect(await codeOf(client.createSender("jobs").sendMessages({ body: "no session" }))).not.toBe(
      "no error",
    );
  });
});

describe("the Service Bus endpoint under the official SDK: session locks", () => {
  it("a session lock lasts the queue's lock duration; unrenewed, its receiver is detached with SessionLockLost", async () => {
    const { client, engine } = await startEndpoint();
    createQueue(engine, "brief", { requiresSession: true, lockDurationMs: 400 });
    await client.createSender("brief").sendMessages({ body: "x", sessionId: "s" });
    const session = await client.acceptSession("brief", "s", { maxAutoLockRenewalDurationInMs: 0 });
    const locked = session.sessionLockedUntilUtc!.getTime() - Date.now();
    expect(locked).toBeLessThanOrEqual(450);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await codeOf(session.receiveMessages(1, { maxWaitTimeInMs: 500 }))).toBe("SessionLockLost");
    const next = await client.acceptSession("brief", "s");
    expect((await next.receiveMessages(1, { maxWaitTimeInMs: 1_000 }))[0]!.body).toBe("x");
    await next.close();
  });

  it("the SDK's automatic renewal keeps a short session lock held", async () => {
    const { client, engine } = await startEndpoint();
    createQueue(engine, "renewed", { requiresSession: true, lockDurationMs: 600 });
    await client.createSender("renewed").sendMessages({ body: "kept", sessionId: "s" });
    const session = await client.acceptSession("renewed", "s", { maxAutoLockRenewalDurationInMs: 10_000 });
    await new Promise((resolve) => setTimeout(resolve, 1_300));
    const [message] = await session.receiveMessages(1, { maxWaitTimeInMs: 1_000 });
    expect(message!.body).toBe("kept");
    await session.completeMessage(message!);
    await session.close();
  });

  it("a plain receiver on a session queue is refused, as on Azure; its dead-letter queue is read without sessions", async () => {
    const { client, engine } = await startEndpoint();
    createQueue(engine, "strict", { requiresSession: true });
    await client.createSender("strict").sendMessages({ body: "x", sessionId: "s" });
    expect(
      await codeOf(client.createReceiver("strict").receiveMessages(1, { maxWaitTimeInMs: 500 })),
    ).not.toBe("no error");
    const session = await client.acceptSession("strict", "s");
    const [message] = await session.receiveMessages(1, { maxWaitTimeInMs: 1_000 });
    await session.deadLetterMessage(message!, { deadLetterReason: "r", deadLetterErrorDescription: "d" });
    await session.close();
    const [letter] = await client
      .createReceiver("strict", { subQueueType: "deadLetter" })
      .receiveMessages(1, { maxWaitTimeInMs: 1_000 });
    expect(letter).toMatchObject({ body: "x", deadLetterReason: "r", sessionId: "s" });
  });

  it("a session another running endpoint on the same store holds stays its own", async () => {
    const first = await withSessions();
    const second = await startEndpoint({ engine: first.engine });
    await first.client.acceptSession("jobs", "a");
    expect(await codeOf(second.client.acceptSession("jobs", "a"))).toBe("SessionCannotBeLocked");
    expect((await second.client.acceptNextSession("jobs")).sessionId).toBe("b");
  });
});
