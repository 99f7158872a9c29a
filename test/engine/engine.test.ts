import { describe, expect, it, vi } from "vitest";
import { MemoryStore } from "../../src/engine/memory/memory-store.js";
import { QueueEngine } from "../../src/engine/queue-engine.js";
import { createClient, type QueueClient, VirtualClock } from "../../src/index.js";

async function memory(clock = new VirtualClock()): Promise<{ client: QueueClient; clock: VirtualClock }> {
  return { client: await createClient({ provider: { type: "memory", clock } }), clock };
}

describe("queue engine", () => {
  it("drops a repeated deduplication id within the window and answers the original id", async () => {
    const { client, clock } = await memory();
    await client.admin.createQueue("dedup", { deduplicationWindowMs: 60_000 });
    const first = await client.sendMessage("dedup", { body: "a", deduplicationId: "order-1" });
    expect(await client.sendMessage("dedup", { body: "a again", deduplicationId: "order-1" })).toBe(first);
    await clock.advance(60_000);
    const later = await client.sendMessage("dedup", { body: "a later", deduplicationId: "order-1" });
    expect(later).not.toBe(first);
    expect((await client.receiveMessages("dedup", 10)).map((message) => message.text())).toEqual([
      "a",
      "a later",
    ]);
    await client.close();
  });

  it("holds a FIFO group while a plain receive has its messages, then releases it on settle", async () => {
    const { client } = await memory();
    await client.admin.createQueue("groups.fifo");
    await client.sendMessages("groups.fifo", [
      { body: "a1", sessionId: "a" },
      { body: "a2", sessionId: "a" },
      { body: "b1", sessionId: "b" },
    ]);
    const [first] = await client.receiveMessages("groups.fifo", 1);
    expect(first?.text()).toBe("a1");
    const next = await client.receiveMessages("groups.fifo", 10);
    expect(next.map((message) => message.text())).toEqual(["b1"]);
    await client.completeMessage(first!.receiptHandle);
    expect((await client.receiveMessage("groups.fifo"))?.text()).toBe("a2");
    await client.close();
  });

  it("requires a session id on FIFO queues and refuses sessions on standard queues", async () => {
    const { client } = await memory();
    await client.admin.createQueue("strict.fifo");
    await expect(client.sendMessage("strict.fifo", "no session")).rejects.toMatchObject({
      code: "Validation",
    });
    await client.admin.createQueue("plain");
    await expect(client.acceptSession("plain")).rejects.toMatchObject({ code: "Unsupported" });
    await client.close();
  });

  it("gives the unsettled messages of a closed session back at once, first in line", async () => {
    const { client } = await memory();
    await client.admin.createQueue("s.fifo");
    await client.sendMessages("s.fifo", [
      { body: "1", sessionId: "s" },
      { body: "2", sessionId: "s" },
    ]);
    const session = await client.acceptSession("s.fifo", "s");
    expect((await session.receiveMessages(2)).map((message) => message.text())).toEqual(["1", "2"]);
    await session.closeSession();
    const again = await client.acceptSession("s.fifo");
    const redelivered = await again.receiveMessages(2);
    expect(redelivered.map((message) => [message.text(), message.deliveryCount])).toEqual([
      ["1", 2],
      ["2", 2],
    ]);
    await client.close();
  });

  it("refuses to renew the lock of a session message (the session lock governs it)", async () => {
    const { client } = await memory();
    await client.admin.createQueue("r.fifo");
    await client.sendMessage("r.fifo", { body: "x", sessionId: "s" });
    const session = await client.acceptSession("r.fifo", "s");
    const message = await session.receiveMessage();
    await expect(client.renewMessageLock(message!.receiptHandle)).rejects.toMatchObject({
      code: "Unsupported",
    });
    await client.close();
  });

  it("explicit dead-lettering without a dead-letter queue fails with Unsupported and keeps the message", async () => {
    const { client } = await memory();
    await client.admin.createQueue("nowhere", { deadLetterQueue: null });
    await client.sendMessage("nowhere", "keep me");
    const message = await client.receiveMessage("nowhere");
    await expect(client.deadLetterMessage(message!.receiptHandle, "Bad")).rejects.toMatchObject({
      code: "Unsupported",
    });
    await client.completeMessage(message!.receiptHandle);
    await client.close();
  });

  it("redrives into a named target and leaves messages whose source queue is gone", async () => {
    const { client } = await memory();
    await client.admin.createQueue("source");
    await client.sendMessages("source", ["one", "two"]);
    for (const message of await client.receiveMessages("source", 2))
      await client.deadLetterMessage(message.receiptHandle, "Failed");
    await client.admin.deleteQueue("source");
    expect(await client.admin.redrive("source-dlq")).toBe(0);
    await client.admin.createQueue("elsewhere");
    expect(await client.admin.redrive("source-dlq", "elsewhere")).toBe(2);
    expect((await client.receiveMessages("elsewhere", 5)).map((message) => message.text())).toEqual([
      "one",
      "two",
    ]);
    await client.close();
  });

  it("counts delayed, active and in-flight messages and applies the queue's default delay", async () => {
    const { client, clock } = await memory();
    await client.admin.createQueue("counted", { defaultDelayMs: 1_000 });
    await client.sendMessages("counted", ["a", { body: "b", delayMs: 0 }]);
    expect(await client.admin.getQueueStats("counted")).toEqual({
      active: 1,
      inFlight: 0,
      delayed: 1,
      deadLettered: 0,
    });
    await client.receiveMessage("counted");
    await clock.advance(1_000);
    expect(await client.admin.getQueueStats("counted")).toEqual({
      active: 1,
      inFlight: 1,
      delayed: 0,
      deadLettered: 0,
    });
    expect(await client.admin.purgeQueue("counted")).toBe(2);
    await client.close();
  });

  it("wakes a waiting receive when a delay ends, without anything being sent", async () => {
    const { client, clock } = await memory();
    await client.sendMessage("later", { body: "soon", delayMs: 5_000 });
    const waiting = client.receiveMessage("later", 60_000);
    await clock.advance(5_000);
    expect((await waiting)?.text()).toBe("soon");
    await client.close();
  });

  it("counts the receives waiting on a queue until each wait ends, by time or by its signal", async () => {
    const clock = new VirtualClock();
    const engine = new QueueEngine(new MemoryStore(), { clock });
    engine.createQueue("polled");
    const leaving = new AbortController();
    const left = engine.receive("polled", 1, (record) => record.seq, {
      waitMs: 60_000,
      signal: leaving.signal,
    });
    const timedOut = engine.receive("polled", 1, (record) => record.seq, { waitMs: 1_000 });
    await vi.waitFor(() => expect(engine.waitingReceivers("polled")).toBe(2));
    leaving.abort();
    expect(await left).toEqual([]);
    expect(engine.waitingReceivers("polled")).toBe(1);
    await clock.advance(1_000);
    expect(await timedOut).toEqual([]);
    expect(engine.waitingReceivers("polled")).toBe(0);
    expect(engine.waitingReceivers("never-polled")).toBe(0);
    await engine.close();
  });

  it("costs about the same to receive from a queue of 100 000 as from one of 10", async () => {
    const { client } = await memory();
    const time = async (depth: number) => {
      if ((await client.admin.getQueue(`depth-${depth}`)) === null)
        for (let i = 0; i < depth; i += 100)
          await client.sendMessages(
            `depth-${depth}`,
            Array.from({ length: Math.min(100, depth) }, () => "x"),
          );
      const started = process.hrtime.bigint();
      for (let i = 0; i < 2_000; i++) {
        await client.sendMessage(`depth-${depth}`, "y");
        const message = await client.receiveMessage(`depth-${depth}`);
        await client.completeMessage(message!.receiptHandle);
      }
      return Number(process.hrtime.bigint() - started);
    };
    await time(10);
    const shallow = Math.min(await time(10), await time(10));
    const deep = await time(100_000);
    // Generous: the benchmark measures the ratio precisely; this guards against O(n) receives, which cost 1000x.
    expect(deep / shallow).toBeLessThan(5);
    await client.close();
  });
});
