import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createClient } from "../../src/index.js";
import { startChild } from "./fixtures/processes.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-processes-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

let files = 0;
async function database() {
  const path = join(directory, `shared-${++files}.db`);
  const client = await createClient({ provider: { type: "sqlite", path } });
  return { path, client };
}

describe("several processes on one SQLite file", () => {
  it("two receiving processes never hold the same message at once", async () => {
    const { path, client } = await database();
    const keys = Array.from({ length: 3_000 }, (_, i) => `m-${i}`);
    await client.sendMessages("shared", keys);
    // Each takes at most 2,000 of the 3,000, so both take some whichever runs faster.
    const receivers = await Promise.all([
      startChild(["drain", path, "shared", "2000"]),
      startChild(["drain", path, "shared", "2000"]),
    ]);
    await Promise.all(receivers.map((child) => child.event("ready")));
    for (const child of receivers) child.tell();
    const results = await Promise.all(receivers.map((child) => child.event("keys", 60_000)));
    const [first, second] = results.map((result) => result.keys as string[]);
    expect(first!.length).toBeGreaterThan(0);
    expect(second!.length).toBeGreaterThan(0);
    const overlap = first!.filter((key) => new Set(second).has(key));
    expect(overlap).toEqual([]);
    expect([...first!, ...second!].sort()).toEqual([...keys].sort());
    await client.close();
  }, 60_000);

  it("a session lock held by one process is refused to another, and released on close", async () => {
    const { path, client } = await database();
    await client.admin.createQueue("orders.fifo");
    await client.sendMessages("orders.fifo", [
      { body: "a1", sessionId: "a" },
      { body: "b1", sessionId: "b" },
    ]);
    const holder = await startChild(["hold-session", path, "orders.fifo", "a"]);
    expect((await holder.event("held")).held).toBe("a");
    const refused = await startChild(["accept", path, "orders.fifo", "a"]);
    expect((await refused.event("error")).error).toBe("SessionLocked");
    const next = await startChild(["accept", path, "orders.fifo", ""]);
    expect((await next.event("accepted")).accepted).toBe("b");
    holder.tell();
    await holder.event("closed");
    const after = await startChild(["accept", path, "orders.fifo", "a"]);
    expect((await after.event("accepted")).accepted).toBe("a");
    for (const child of [holder, refused, next, after]) await child.kill();
    await client.close();
  }, 60_000);

  it("a receive waiting in one process sees a message sent by another within 100 ms", async () => {
    const { path, client } = await database();
    await client.admin.createQueue("wake");
    const waiter = await startChild(["wait", path, "wake"]);
    await waiter.event("ready");
    await new Promise((resolve) => setTimeout(resolve, 300));
    await client.sendMessage("wake", "hello");
    const sentAt = Date.now();
    const { receivedAt, body } = await waiter.event("receivedAt");
    expect(body).toBe("hello");
    expect(receivedAt as number).toBeLessThan(sentAt + 100);
    await waiter.exit();
    await client.close();
  }, 30_000);

  it("receives waiting on several queues in one process all see sends made by another", async () => {
    const { path, client } = await database();
    const queues = ["wake-a", "wake-b", "wake-c"];
    for (const queue of queues) await client.admin.createQueue(queue);
    const waiter = await startChild(["wait-on-each", path, ...queues]);
    await waiter.event("ready");
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const queue of queues) await client.sendMessage(queue, queue);
    const sentAt = Date.now();
    // The process reads another's change once; each of its waiters must hear of it, not only the first.
    for (let i = 0; i < queues.length; i++) {
      const { receivedAt, queue, body } = await waiter.event("receivedAt", 20_000, i);
      expect(body).toBe(queue);
      expect(receivedAt as number).toBeLessThan(sentAt + 1_000);
    }
    await waiter.exit();
    await client.close();
  }, 30_000);

  it("processes writing at once never see SQLITE_BUSY", async () => {
    const { path, client } = await database();
    await client.admin.createQueue("busy");
    const writers = await Promise.all(
      ["x", "y", "z"].map((name) => startChild(["send", path, "busy", name, "1500"])),
    );
    const reports = await Promise.all(writers.map((child) => child.event("done", 60_000)));
    expect(reports.map((report) => report.errors)).toEqual([0, 0, 0]);
    const stats = await client.admin.getQueueStats("busy");
    expect(stats.active).toBe(4_500);
    await client.close();
  }, 60_000);
});
