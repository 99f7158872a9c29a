import { isServiceBusError } from "@azure/service-bus";
import { describe, expect, it } from "vitest";
import { createQueue, type Endpoint, startEndpoint } from "./harness.js";

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    return isServiceBusError(error) ? error.code : `not a ServiceBusError: ${String(error)}`;
  }
  return "no error";
}

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
