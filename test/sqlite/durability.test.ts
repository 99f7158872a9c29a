import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { decodePayload } from "../../src/engine/sqlite/message-rows.js";
import { drainAfterLocks, killRepeatedly, type LedgerTarget, readLedger } from "../support/ledger.js";
import { startChild } from "./fixtures/processes.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-durability-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const KILLS = 20;
const LOCK_MS = 1_000;

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

describe("sqlite durability under SIGKILL", () => {
  it(`keeps every acknowledged send and complete across ${KILLS} kills at random moments`, async () => {
    const path = join(directory, "ledger.db");
    const target: LedgerTarget = {
      file: join(directory, "ledger.log"),
      queue: "ledger",
      lockMs: LOCK_MS,
      start: (_worker, mode, args) => startChild([mode, path, ...args], { LOCK_MS: String(LOCK_MS) }),
      // A killed process's writes end with it: SQLite runs inside it.
      afterKill: async () => undefined,
      storedKeys: async () => storedKeys(path),
    };
    await killRepeatedly(target, KILLS, 220);
    const ledger = readLedger(target.file);
    expect(ledger.sent.size).toBeGreaterThan(KILLS * 5);
    expect(ledger.completed.size).toBeGreaterThan(0);
    // Every message still stored, locked by a killed process or never received, is delivered once its lock expires.
    await drainAfterLocks(target);
  }, 120_000);
});
