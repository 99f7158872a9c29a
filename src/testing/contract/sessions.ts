import { expect } from "vitest";
import { QueueError } from "../../core/errors.js";
import type { QueueClient } from "../../core/queue-client.js";
import { type Harness, isPending, rejection } from "./harness.js";
import { contractCase, type Suite } from "./suite.js";

async function sessionQueue(h: Harness, client: QueueClient): Promise<string> {
  return h.queue(client, { requiresSession: true });
}

function expectCode(error: unknown, code: string): void {
  expect(error).toBeInstanceOf(QueueError);
  expect((error as QueueError).code).toBe(code);
}

/** C40–C47: sessions, skipped where the provider has none. */
export function sessionCases(suite: Suite): void {
  const hasSessions = (client: QueueClient) => client.capabilities.sessions !== "none";
  const nativeSessions = (client: QueueClient) => client.capabilities.sessions === "native";

  contractCase(
    suite,
    "C40 messages of one session arrive in the order they were sent, across receives and batches",
    async (h, context) => {
      const client = await h.client();
      suite.requires(context, "C40", hasSessions(client), "sessions");
      const queue = await sessionQueue(h, client);
      for (let i = 0; i < 12; i++)
        await client.sendMessages(queue, [
          { body: `a-${i}`, sessionId: "a" },
          { body: `b-${i}`, sessionId: "b" },
        ]);
      const session = await client.acceptSession(queue, "a");
      expect(session.sessionId).toBe("a");
      const received: string[] = [];
      const single = await session.receiveMessage();
      received.push(single!.text());
      await session.completeMessage(single!.receiptHandle);
      while (received.length < 12) {
        const batch = await session.receiveMessages(5, 1_000);
        if (batch.length === 0) break;
        for (const message of batch) {
          expect(message.sessionId).toBe("a");
          received.push(message.text());
          await session.completeMessage(message.receiptHandle);
        }
      }
      expect(received).toEqual(Array.from({ length: 12 }, (_, i) => `a-${i}`));
      await session.closeSession();
    },
  );

  contractCase(
    suite,
    "C41 acceptSession(queue, id) holds the session exclusively until closed or its lock expires",
    async (h, context) => {
      const first = await h.client();
      suite.requires(context, "C41", nativeSessions(first), "native sessions");
      const second = await h.client();
      const queue = await sessionQueue(h, first);
      await first.sendMessage(queue, { body: "x", sessionId: "s1" });
      const held = await first.acceptSession(queue, "s1");
      expectCode(await rejection(second.acceptSession(queue, "s1")), "SessionLocked");
      await held.closeSession();
      const again = await second.acceptSession(queue, "s1");
      expectCode(await rejection(first.acceptSession(queue, "s1")), "SessionLocked");
      await h.advance(h.options.sessionLockDurationMs + 200);
      const afterExpiry = await first.acceptSession(queue, "s1");
      expect(afterExpiry.sessionId).toBe("s1");
      expectCode(await rejection(again.receiveMessage()), "SessionLockLost");
      const empty = await first.acceptSession(queue, "never-used");
      expect(await empty.receiveMessage()).toBeNull();
    },
  );

  contractCase(
    suite,
    "C42 acceptSession(queue) takes a free session with messages; two concurrent calls get two sessions",
    async (h, context) => {
      const first = await h.client();
      suite.requires(context, "C42", hasSessions(first), "sessions");
      const second = await h.client();
      const queue = await sessionQueue(h, first);
      await first.sendMessages(queue, [
        { body: "1", sessionId: "left" },
        { body: "2", sessionId: "right" },
      ]);
      const [a, b] = await Promise.all([
        first.acceptSession(queue, undefined, 2_000),
        second.acceptSession(queue, undefined, 2_000),
      ]);
      expect(new Set([a.sessionId, b.sessionId])).toEqual(new Set(["left", "right"]));
      const fromA = await a.receiveMessage(1_000);
      expect(fromA?.sessionId).toBe(a.sessionId);
    },
  );

  contractCase(
    suite,
    "C43 with no session available, acceptSession(queue) fails with NoSessionAvailable after about timeoutMs",
    async (h, context) => {
      const client = await h.client();
      suite.requires(context, "C43", hasSessions(client), "sessions");
      const queue = await sessionQueue(h, client);
      const timeoutMs = 2_000;
      const begun = Date.now();
      const waiting = rejection(client.acceptSession(queue, undefined, timeoutMs));
      if (h.clock) {
        await h.clock.advance(timeoutMs - 1);
        expect(await isPending(waiting)).toBe(true);
        await h.clock.advance(1);
      }
      const error = await waiting;
      expectCode(error, "NoSessionAvailable");
      expect((error as QueueError).isTransient).toBe(true);
      if (!h.clock) {
        expect(Date.now() - begun).toBeGreaterThanOrEqual(timeoutMs - 50);
        expect(Date.now() - begun).toBeLessThanOrEqual(timeoutMs + 1_000);
      }
    },
  );

  contractCase(
    suite,
    "C44 renewSessionLock moves sessionExpiresAt later; closeSession frees the session at once",
    async (h, context) => {
      const first = await h.client();
      suite.requires(context, "C44", nativeSessions(first), "native sessions");
      const second = await h.client();
      const queue = await sessionQueue(h, first);
      await first.sendMessage(queue, { body: "x", sessionId: "renewed" });
      const session = await first.acceptSession(queue, "renewed");
      const before = session.sessionExpiresAt.getTime();
      expect(before).toBeGreaterThan(h.now());
      await h.advance(1_000);
      const renewed = await session.renewSessionLock();
      expect(renewed.getTime()).toBeGreaterThan(before);
      expect(session.sessionExpiresAt.getTime()).toBe(renewed.getTime());
      await session.closeSession();
      const taken = await second.acceptSession(queue, undefined, 1_000);
      expect(taken.sessionId).toBe("renewed");
    },
  );

  contractCase(
    suite,
    "C45 an abandoned session message is delivered again before any later message of its session",
    async (h, context) => {
      const client = await h.client();
      suite.requires(context, "C45", hasSessions(client), "sessions");
      const queue = await sessionQueue(h, client);
      await client.sendMessages(queue, [
        { body: "first", sessionId: "s" },
        { body: "second", sessionId: "s" },
      ]);
      const session = await client.acceptSession(queue, undefined, 1_000);
      const first = await session.receiveMessage(1_000);
      expect(first?.text()).toBe("first");
      await session.abandonMessage(first!.receiptHandle);
      const again = await session.receiveMessage(1_000);
      expect(again?.text()).toBe("first");
      expect(again?.deliveryCount).toBe(2);
      await session.completeMessage(again!.receiptHandle);
      expect((await session.receiveMessage(1_000))?.text()).toBe("second");
    },
  );

  contractCase(
    suite,
    "C46 while a session is held, plain receiveMessage does not return its messages",
    async (h, context) => {
      const client = await h.client();
      suite.requires(context, "C46", hasSessions(client), "sessions");
      const other = await h.client();
      const queue = await sessionQueue(h, client);
      await client.sendMessages(queue, [
        { body: "held-1", sessionId: "held" },
        { body: "held-2", sessionId: "held" },
        { body: "free-1", sessionId: "free" },
      ]);
      const session = await client.acceptSession(queue, "held");
      const plain = await other.receiveMessages(queue, 10);
      expect(plain.map((message) => message.text())).toEqual(["free-1"]);
      expect(await other.receiveMessage(queue)).toBeNull();
      expect((await session.receiveMessages(10))[0]?.text()).toBe("held-1");
    },
  );

  contractCase(
    suite,
    "C47 session state set by one holder is read by the next holder of the same session",
    async (h, context) => {
      const first = await h.client();
      suite.requires(context, "C47", first.capabilities.sessionState, "sessionState");
      const second = await h.client();
      const queue = await sessionQueue(h, first);
      await first.sendMessage(queue, { body: "x", sessionId: "stateful" });
      const holder = await first.acceptSession(queue, "stateful");
      expect(await holder.getSessionState()).toBeNull();
      await holder.setSessionState("step=3");
      await holder.closeSession();
      const next = await second.acceptSession(queue, "stateful");
      expect(Buffer.from((await next.getSessionState())!).toString()).toBe("step=3");
      await next.setSessionState(Uint8Array.from([1, 2, 3]));
      expect([...((await next.getSessionState()) ?? [])]).toEqual([1, 2, 3]);
      await next.setSessionState(null);
      expect(await next.getSessionState()).toBeNull();
    },
  );
}
