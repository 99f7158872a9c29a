import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { JournalStore } from "../../src/engine/journal/journal-store.js";
import { createClient, type QueueClient, VirtualClock } from "../../src/index.js";
import { QUEUE_DEFAULTS } from "../../src/rules/queue-defaults.js";
import { queueRecord } from "../../src/rules/queue-records.js";
import { holdings } from "./holdings.js";
import { openStores, registerJournalProvider } from "./journal-provider.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-journal-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
registerJournalProvider();

let journals = 0;
const newPath = () => join(directory, `j${++journals}.journal`);

function open(path: string, clock: VirtualClock, compactAfterBytes?: number): Promise<QueueClient> {
  return createClient({ provider: { type: "journal", path, clock, compactAfterBytes } });
}

/** Queues of every kind with messages in every state: ready, delayed, locked, dead-lettered, in sessions with state. */
async function workload(client: QueueClient, clock: VirtualClock): Promise<void> {
  await client.admin.createQueue("dead");
  await client.admin.createQueue("work", {
    maxDeliveryCount: 2,
    deadLetterQueue: "dead",
    defaultTimeToLiveMs: 3_600_000,
  });
  await client.admin.createQueue("orders.fifo", { deduplicationWindowMs: 60_000 });
  await client.sendMessages("work", ["one", "two", "three", "four"]);
  await client.sendMessage("work", { body: "later", delayMs: 60_000, attributes: { kind: "delayed" } });
  const [first, second] = await client.receiveMessages("work", 2);
  await client.completeMessage(first!.receiptHandle);
  await client.abandonMessage(second!.receiptHandle);
  for (let i = 0; i < 2; i++) {
    const [again] = await client.receiveMessages("work", 1);
    await client.abandonMessage(again!.receiptHandle);
  }
  await client.receiveMessages("work", 1);
  await client.sendMessages("orders.fifo", [
    { body: "a1", sessionId: "a", deduplicationId: "a1" },
    { body: "a2", sessionId: "a", correlationId: "c-2", contentType: "text/plain" },
    { body: "b1", sessionId: "b" },
  ]);
  const session = await client.acceptSession("orders.fifo", "a");
  await session.setSessionState("step 2");
  const [a1] = await session.receiveMessages(1);
  await session.completeMessage(a1!.receiptHandle);
  await clock.advance(1_000);
}

describe("journal store", () => {
  it("reopens to exactly what was committed: queues, messages in every state, groups, deduplication ids", async () => {
    const path = newPath();
    const clock = new VirtualClock();
    const client = await open(path, clock);
    await workload(client, clock);
    const before = holdings(openStores.get(path)!);
    expect(before.map((queue) => queue.record.name)).toEqual([
      "dead",
      "dead-dlq",
      "orders-dlq.fifo",
      "orders.fifo",
      "work",
    ]);
    expect(before.find((queue) => queue.record.name === "dead")!.messages).toHaveLength(1);
    await client.close();

    const reopened = new JournalStore(path);
    expect(holdings(reopened)).toEqual(before);
    reopened.close();

    // Numbering goes on after the messages sent before, and the session lock still holds.
    const again = await open(path, clock);
    await again.sendMessage("work", "after the restart");
    const work = openStores.get(path)!.contents("work")!;
    const newest = work.messages.at(-1)!;
    expect(newest.seq).toBe(before.find((queue) => queue.record.name === "work")!.nextSeq);
    await expect(again.acceptSession("orders.fifo", "a")).rejects.toMatchObject({ code: "SessionLocked" });
    await again.close();
  });

  it("drops a last transaction cut short by a crash, cuts it off the file and goes on after it", async () => {
    const path = newPath();
    const clock = new VirtualClock();
    const client = await open(path, clock);
    await client.admin.createQueue("q");
    await client.sendMessages("q", ["kept"]);
    await client.close();
    const whole = statSync(path).size;
    appendFileSync(path, '[["message","q",2,"ready",0,null,0,null,null,null,null,"id","dG9y');

    const store = new JournalStore(path);
    expect(store.contents("q")!.messages.map((message) => Buffer.from(message.body).toString())).toEqual([
      "kept",
    ]);
    expect(statSync(path).size).toBe(whole);
    store.close();

    const again = await open(path, clock);
    await again.sendMessage("q", "next");
    await again.close();
    const last = new JournalStore(path);
    expect(last.contents("q")!.messages.map((message) => Buffer.from(message.body).toString())).toEqual([
      "kept",
      "next",
    ]);
    last.close();
  });

  it("refuses a journal damaged before its last line and leaves the file as it was", async () => {
    const path = newPath();
    const client = await open(path, new VirtualClock());
    await client.admin.createQueue("q");
    await client.sendMessages("q", ["a"]);
    await client.sendMessages("q", ["b"]);
    await client.close();
    const lines = readFileSync(path, "utf8").split("\n");
    lines[1] = lines[1]!.slice(0, 20);
    const damaged = lines.join("\n");
    writeFileSync(path, damaged);

    expect(() => new JournalStore(path)).toThrow(/damaged at byte \d+.*not changed/);
    expect(readFileSync(path, "utf8")).toBe(damaged);
    // The failed open let the file go: the refusal repeats instead of claiming it is in use.
    expect(() => new JournalStore(path)).toThrow(/damaged/);
  });

  it("compacts a grown journal into a snapshot that replays the same, numbering included", async () => {
    const path = newPath();
    const clock = new VirtualClock();
    const client = await open(path, clock, 4_096);
    await client.admin.createQueue("q");
    await client.sendMessages("q", ["stays 1", "stays 2"]);
    for (let round = 0; round < 200; round++) {
      await client.sendMessages("q", [`passing ${round}`]);
      const [message] = await client.receiveMessages("q", 1);
      await client.completeMessage(message!.receiptHandle);
    }
    const before = holdings(openStores.get(path)!);
    await client.close();
    // 200 rounds wrote some 80 KB of changes; what remains is two messages and the queue.
    expect(statSync(path).size).toBeLessThan(3 * 4_096);

    const store = new JournalStore(path, { compactAfterBytes: 4_096 });
    expect(holdings(store)).toEqual(before);
    expect(before[0]!.nextSeq).toBe(203);
    store.close();
  });

  it("lets one process at a time open a journal, and takes over the lock of one that ended", () => {
    const path = newPath();
    const store = new JournalStore(path);
    expect(() => new JournalStore(path)).toThrow(
      new RegExp(`in use by process ${process.pid} \\(this one\\)`),
    );
    store.close();
    expect(existsSync(`${path}.lock`)).toBe(false);

    const ended = spawnSync(process.execPath, ["-e", ""]).pid;
    writeFileSync(`${path}.lock`, `${ended}\n`);
    const taken = new JournalStore(path);
    expect(readFileSync(`${path}.lock`, "utf8")).toBe(`${process.pid}\n`);
    taken.close();
  });

  it("fails for good at a commit the disk refuses, and reopens to every commit before it", () => {
    const path = newPath();
    // A file size limit of 8 KiB, its signal ignored, makes the write that crosses it fail with EFBIG.
    const filled = spawnSync(
      "bash",
      [
        "-c",
        `trap '' XFSZ; ulimit -f 8; exec "${process.execPath}" --import tsx test/journal/fixtures/fill-journal.ts "${path}"`,
      ],
      { cwd: process.cwd(), encoding: "utf8" },
    );
    const report = JSON.parse(filled.stdout) as {
      created: number;
      code: string;
      message: string;
      later: string;
    };
    expect(report).toMatchObject({ code: "Provider", later: "Provider" });
    expect(report.message).toMatch(/could not write the journal .*EFBIG.*reopen it/);
    expect(report.created).toBeGreaterThan(10);

    // The lock its owner left (it ended without closing the store) is taken over; the half-written line is cut off.
    const store = new JournalStore(path);
    expect(store.listQueues().map((queue) => queue.name)).toEqual(
      Array.from({ length: report.created }, (_, i) => `q${i}`).sort(),
    );
    expect(statSync(path).size).toBeLessThan(8 * 1024);
    store.close();
  });

  it("refuses options it cannot honour before touching the file", () => {
    const path = newPath();
    expect(() => new JournalStore(path, { compactAfterBytes: 0 })).toThrow(/compactAfterBytes/);
    expect(() => new JournalStore(path, { synchronous: "OFF" as "FULL" })).toThrow(/NORMAL or FULL/);
    expect(existsSync(path)).toBe(false);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it("names the journal when the file system refuses it, and leaves no lock behind", () => {
    const missing = join(directory, "no-such-directory", "j.journal");
    expect(() => new JournalStore(missing)).toThrow(
      expect.objectContaining({
        code: "Configuration",
        message: expect.stringMatching(/cannot open the journal .*no-such-directory.*ENOENT/),
      }),
    );
    const aDirectory = join(directory, "a-directory");
    mkdirSync(aDirectory);
    expect(() => new JournalStore(aDirectory)).toThrow(/cannot open the journal .*a-directory.*EISDIR/);
    expect(existsSync(`${aDirectory}.lock`)).toBe(false);
  });

  it("syncs every commit when asked to survive power loss, and refuses calls once closed", () => {
    const path = newPath();
    const store = new JournalStore(path, { synchronous: "FULL" });
    store.transaction(() =>
      store.putQueue(queueRecord("q", { properties: { tag: "x" } }, QUEUE_DEFAULTS, 0)),
    );
    store.close();
    expect(() => store.listQueues()).toThrow(/closed/);
    const reopened = new JournalStore(path);
    expect(reopened.getQueue("q")?.properties).toEqual({ tag: "x" });
    reopened.close();
  });
});
