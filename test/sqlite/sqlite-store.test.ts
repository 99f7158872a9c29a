import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { prepareMessage } from "../../src/core/validation.js";
import { QueueEngine } from "../../src/engine/queue-engine.js";
import { SCHEMA_VERSION } from "../../src/engine/sqlite/schema.js";
import { SqliteStore } from "../../src/engine/sqlite/sqlite-store.js";
import { prepareStatements } from "../../src/engine/sqlite/statements.js";
import { createClient, QueueError, VirtualClock } from "../../src/index.js";
import { fullCapabilities } from "../../src/rules/full-capabilities.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-sqlite-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
let files = 0;
const newPath = () => join(directory, `store-${++files}.db`);

function plan(db: Database.Database, source: string): string {
  const parameters = Array.from({ length: source.split("?").length - 1 }, () => "x");
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${source}`).all(...parameters) as { detail: string }[];
  return rows.map((row) => row.detail).join(" | ");
}

/**
 * Copies the whole log into the file and empties it. A checkpoint that meets another one under
 * way (each store's checkpoint thread runs one every 100 ms) reports itself busy; it is tried again.
 */
async function truncateLog(db: Database.Database): Promise<void> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const [result] = db.pragma("wal_checkpoint(TRUNCATE)") as { busy: number }[];
    if (result?.busy === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error("the log stayed busy for 5 s");
}

describe("sqlite store", () => {
  it("answers every question of the engine from an index: no table scan, no sort", () => {
    const store = new SqliteStore(newPath());
    const sql = prepareStatements(store.db);
    const reads = {
      readyMessages: sql.readyMessages(10).source,
      readyInGroup: sql.readyInGroup(10).source,
      dueMessages: sql.dueMessages(10).source,
      expiredMessages: sql.expiredMessages(10).source,
      availableGroups: sql.availableGroups(10).source,
      lockedInGroup: sql.lockedInGroup.source,
      getMessage: sql.getMessage.source,
      deleteLocked: sql.deleteLocked.source,
      deleteLockedAnyTime: sql.deleteLockedAnyTime.source,
      nextDue: sql.nextDue.source,
      nextUnlock: sql.nextUnlock.source,
      getGroup: sql.getGroup.source,
      findDuplicate: sql.findDuplicate.source,
    };
    const plans = Object.fromEntries(
      Object.entries(reads).map(([name, source]) => [name, plan(store.db, source)]),
    );
    console.info("query plans:", plans);
    for (const [name, detail] of Object.entries(plans)) {
      expect(detail, name).toMatch(/SEARCH/);
      expect(detail, name).not.toMatch(/\bSCAN\b|TEMP B-TREE/);
    }
    expect(plans.readyMessages).toContain("messages_ready");
    expect(plans.dueMessages).toContain("messages_due");
    expect(plans.expiredMessages).toContain("messages_expiry");
    expect(plans.readyInGroup).toContain("messages_group");
    expect(plans.availableGroups).toContain("groups_head");
    store.close();
  });

  it("reads a queue's settings afresh in every transaction, and outside one once its copy is 100 ms old", async () => {
    const path = newPath();
    const clock = new VirtualClock();
    const here = new SqliteStore(path, { clock });
    const elsewhere = new QueueEngine(new SqliteStore(path));
    new QueueEngine(here).createQueue("settings", { lockDurationMs: 1_000 });
    const lockDuration = () => here.getQueue("settings")?.lockDurationMs;
    expect(lockDuration()).toBe(1_000);

    const changed = { ...elsewhere.getQueueRecord("settings")!, lockDurationMs: 5_000 };
    elsewhere.updateQueue(changed);
    expect(lockDuration()).toBe(1_000);
    expect(here.transaction(() => here.getQueue("settings")?.lockDurationMs)).toBe(5_000);
    elsewhere.updateQueue({ ...changed, lockDurationMs: 7_000 });
    await clock.advance(99);
    expect(lockDuration()).toBe(5_000);
    await clock.advance(1);
    expect(lockDuration()).toBe(7_000);

    elsewhere.deleteQueue("settings");
    expect(here.transaction(() => here.getQueue("settings"))).toBeUndefined();
    expect(lockDuration()).toBeUndefined();
    new QueueEngine(here).createQueue("closing");
    expect(here.getQueue("closing")).toBeDefined();
    await elsewhere.close();
    await here.close();
    expect(() => here.getQueue("closing")).toThrow(QueueError);
  });

  it("creates a versioned WAL schema and refuses a file from a newer version", () => {
    const path = newPath();
    new SqliteStore(path).close();
    const db = new Database(path);
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("user_version", { simple: true })).toBe(SCHEMA_VERSION);
    expect(db.pragma("auto_vacuum", { simple: true })).toBe(2);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    let error: unknown;
    try {
      new SqliteStore(path);
    } catch (thrown) {
      error = thrown;
    }
    expect(QueueError.is(error, "Configuration")).toBe(true);
    expect(String(error)).toContain("schema version");
  });

  it("names a file that is not an SQLite database", () => {
    const path = newPath();
    writeFileSync(path, "a text file, not a database\n".repeat(100));
    expect(() => new SqliteStore(path)).toThrow(
      expect.objectContaining({
        code: "Configuration",
        message: `cannot open SQLite file ${path}: file is not a database`,
      }),
    );
  });

  it("keeps queues and unacknowledged messages across a restart", async () => {
    const path = newPath();
    const before = await createClient(`sqlite:${path}`);
    await before.admin.createQueue("kept.fifo", { lockDurationMs: 1_000 });
    await before.sendMessages("kept.fifo", [
      { body: "one", sessionId: "s" },
      { body: "two", sessionId: "s" },
    ]);
    await before.admin.createQueue("plain", { lockDurationMs: 1_000 });
    await before.sendMessage("plain", { body: "locked", attributes: { a: "1" } });
    expect(await before.receiveMessage("plain")).not.toBeNull();
    await before.close();
    const after = await createClient(`sqlite:${path}`);
    expect(await after.admin.listQueues()).toEqual(["kept-dlq.fifo", "kept.fifo", "plain", "plain-dlq"]);
    expect((await after.admin.getQueue("kept.fifo"))?.fifo).toBe(true);
    const session = await after.acceptSession("kept.fifo");
    expect((await session.receiveMessages(10)).map((message) => message.text())).toEqual(["one", "two"]);
    expect((await after.admin.getQueueStats("plain")).inFlight).toBe(1);
    const again = await after.receiveMessage("plain", 5_000);
    expect(again?.text()).toBe("locked");
    expect(again?.deliveryCount).toBe(2);
    expect(again?.attributes).toEqual({ a: "1" });
    await after.close();
    // Closed means let go: the checkpoint thread's connection, the last, has removed the log files.
    expect(existsSync(`${path}-wal`)).toBe(false);
    expect(existsSync(`${path}-shm`)).toBe(false);
  });

  it("removes completed and expired messages and does not grow under a steady load", async () => {
    const path = newPath();
    const clock = new VirtualClock();
    const client = await createClient({ provider: { type: "sqlite", path, clock } });
    await client.admin.createQueue("steady", { deadLetterOnExpiration: false });
    const store = new SqliteStore(path);
    const body = "x".repeat(200);
    const cycle = async (rounds: number) => {
      for (let round = 0; round < rounds; round++) {
        await client.sendMessages(
          "steady",
          Array.from({ length: 10 }, () => body),
        );
        await client.sendMessage("steady", { body, timeToLiveMs: 1_000 });
        await clock.advance(1_500);
        const received = await client.receiveMessages("steady", 20);
        await Promise.all(received.map((message) => client.completeMessage(message.receiptHandle)));
      }
    };
    await cycle(300);
    store.housekeeping();
    const warm = store.pageCounts().pages;
    await cycle(1_500);
    store.housekeeping();
    const later = store.pageCounts().pages;
    expect(later).toBeLessThanOrEqual(warm + 64);
    const rows = store.db.prepare("SELECT count(*) AS n FROM messages").get() as { n: number };
    expect(rows.n).toBe(0);
    expect(await client.admin.getQueueStats("steady")).toEqual({
      active: 0,
      inFlight: 0,
      delayed: 0,
      deadLettered: 0,
    });

    // A burst grows the file; once drained, housekeeping gives the space back.
    await client.sendMessages(
      "burst",
      Array.from({ length: 5_000 }, () => "y".repeat(2_000)),
    );
    store.housekeeping();
    const grown = store.pageCounts().pages;
    await client.admin.purgeQueue("burst");
    store.housekeeping();
    const { pages, free } = store.pageCounts();
    expect(pages).toBeLessThan(grown / 2);
    expect(free).toBeLessThanOrEqual(2_048);
    await truncateLog(store.db);
    expect(statSync(path).size).toBeLessThan(grown * 4096);
    await store.close();
    await client.close();
  }, 60_000);

  it("keeps the write-ahead log bounded under writes that never pause", async () => {
    const path = newPath();
    const limitPages = 256;
    const engine = new QueueEngine(new SqliteStore(path, { walLimitPages: limitPages }));
    const message = prepareMessage(Buffer.alloc(4_000, 1), fullCapabilities(1_048_576, 100));
    let largestLog = 0;
    // Each round sends 20 pages of bodies and settles them: 600 rounds write far more log than the limit.
    for (let round = 0; round < 600; round++) {
      engine.send(
        "continuous",
        Array.from({ length: 20 }, () => message),
      );
      const locked = await engine.receive("continuous", 20, (record) => record);
      for (const record of locked)
        engine.complete({ queue: "continuous", seq: record.seq, lockToken: record.lockToken! });
      largestLog = Math.max(largestLog, statSync(`${path}-wal`).size);
    }
    // Without a checkpoint that catches up, the log would hold every page written (about 400 MB here).
    expect(largestLog).toBeLessThan(4 * limitPages * 4_096 + 1_000_000);
    engine.close();
  }, 60_000);
});
