import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { decodePayload } from "../../src/engine/sqlite/message-rows.js";
import { startChild } from "./fixtures/processes.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-durability-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const KILLS = 20;
const LOCK_MS = 1_000;

interface Ledger {
  sent: Set<string>;
  /** Keys whose complete was about to be called: they may be gone without a C line. */
  completing: Set<string>;
  completed: Set<string>;
  /** Keys received after their complete resolved: must stay empty. */
  receivedAfterComplete: string[];
}

function readLedger(file: string): Ledger {
  const ledger: Ledger = {
    sent: new Set(),
    completing: new Set(),
    completed: new Set(),
    receivedAfterComplete: [],
  };
  if (!existsSync(file)) return ledger;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const [kind, key] = line.split(" ");
    if (key === undefined) continue;
    if (kind === "S") ledger.sent.add(key);
    if (kind === "c") ledger.completing.add(key);
    if (kind === "C") ledger.completed.add(key);
    if (kind === "R" && ledger.completed.has(key)) ledger.receivedAfterComplete.push(key);
  }
  return ledger;
}

function storedKeys(path: string): Set<string> {
  const db = new Database(path, { readonly: true });
  try {
    const payloads = db
      .prepare(
        "SELECT payload FROM messages JOIN queues ON messages.queue = queues.id WHERE queues.name = 'ledger'",
      )
      .pluck()
      .all() as Buffer[];
    return new Set(payloads.map((payload) => Buffer.from(decodePayload(payload).body).toString()));
  } finally {
    db.close();
  }
}

/** Messages acknowledged as sent and never completed must still be stored; completed ones must be gone. */
function checkInvariants(ledger: Ledger, stored: Set<string>): void {
  const lost = [...ledger.sent].filter((key) => !stored.has(key) && !ledger.completing.has(key));
  expect(lost, "messages whose send resolved are lost").toEqual([]);
  const resurrected = [...ledger.completed].filter((key) => stored.has(key));
  expect(resurrected, "completed messages came back").toEqual([]);
  expect(ledger.receivedAfterComplete, "completed messages were delivered again").toEqual([]);
}

describe("sqlite durability under SIGKILL", () => {
  it(`keeps every acknowledged send and complete across ${KILLS} kills at random moments`, async () => {
    const path = join(directory, "ledger.db");
    const file = join(directory, "ledger.log");
    for (let kill = 0; kill < KILLS; kill++) {
      const child = await startChild(["ledger", path, file, `w${kill}`], { LOCK_MS: String(LOCK_MS) });
      await child.event("ready");
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 200));
      await child.kill();
      checkInvariants(readLedger(file), storedKeys(path));
    }
    const ledger = readLedger(file);
    const before = storedKeys(path);
    expect(ledger.sent.size).toBeGreaterThan(KILLS * 5);
    expect(ledger.completed.size).toBeGreaterThan(0);

    // Every message still stored, locked by a killed process or never received, is delivered once its lock expires.
    await new Promise((resolve) => setTimeout(resolve, LOCK_MS + 100));
    const drainer = await startChild(["drain", path, "ledger"], { LOCK_MS: String(LOCK_MS) });
    drainer.tell();
    const { keys } = (await drainer.event("keys", 60_000)) as { keys: string[] };
    await drainer.exit();
    expect(new Set(keys)).toEqual(before);
    expect(keys.length).toBe(new Set(keys).size);
    expect(keys.filter((key) => ledger.completed.has(key))).toEqual([]);
    expect(storedKeys(path).size).toBe(0);
  }, 120_000);
});
