// The test side of the ledger child (test/support/queue-child.ts): a process that sends, receives
// and completes, writing each step to a file once it is done, is killed or cut off at random
// moments; the file then says what the queue must still hold and what it must never give again.
import { existsSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "vitest";
import type { JsonLinesChild } from "./json-lines-child.js";

/** What the ledger file says happened. */
export interface Ledger {
  sent: Set<string>;
  /** Keys whose complete was about to be called: they may be gone without a C line. */
  completing: Set<string>;
  completed: Set<string>;
  /** The code each failed complete answered, by key. */
  failed: Map<string, string>;
  /** Keys received after their complete resolved: must stay empty. */
  receivedAfterComplete: string[];
}

/** Reads the ledger file (an empty ledger when nothing was written yet). */
export function readLedger(file: string): Ledger {
  const ledger: Ledger = {
    sent: new Set(),
    completing: new Set(),
    completed: new Set(),
    failed: new Map(),
    receivedAfterComplete: [],
  };
  if (!existsSync(file)) return ledger;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    const [kind, key, detail] = line.split(" ");
    if (key === undefined) continue;
    if (kind === "S") ledger.sent.add(key);
    if (kind === "c") ledger.completing.add(key);
    if (kind === "C") ledger.completed.add(key);
    if (kind === "F") ledger.failed.set(key, detail ?? "");
    if (kind === "R" && ledger.completed.has(key)) ledger.receivedAfterComplete.push(key);
  }
  return ledger;
}

/** Messages acknowledged as sent and never completed must still be stored; completed ones must be gone. */
export function checkLedger(ledger: Ledger, stored: Set<string>): void {
  const lost = [...ledger.sent].filter((key) => !stored.has(key) && !ledger.completing.has(key));
  expect(lost, "messages whose send resolved are lost").toEqual([]);
  const resurrected = [...ledger.completed].filter((key) => stored.has(key));
  expect(resurrected, "completed messages came back").toEqual([]);
  expect(ledger.receivedAfterComplete, "completed messages were delivered again").toEqual([]);
}

/** A queue store the ledger child runs against, as the kill test sees it. */
export interface LedgerTarget {
  /** The ledger file the children write. */
  readonly file: string;
  /** The queue the children send to and receive from. */
  readonly queue: string;
  /** How long a receive locks a message on it. */
  readonly lockMs: number;
  /** Starts a child as process `worker` running `mode` ("ledger" or "drain") with `args`. */
  start(worker: string, mode: string, args: readonly string[]): Promise<JsonLinesChild>;
  /** Resolves once no write of the killed `worker` can still commit (a server may finish one after the kill). */
  afterKill(worker: string): Promise<void>;
  /** The keys stored on the queue, locked ones included. */
  storedKeys(): Promise<Set<string>>;
}

/**
 * Starts a ledger child `kills` times, each killed with SIGKILL at a random moment of up to
 * `maxRunMs`, checking the ledger against the store after each kill; then goes on killing (up to
 * five times as often) until `enough` says the ledger holds enough, so a slow machine only takes
 * longer.
 */
export async function killRepeatedly(
  target: LedgerTarget,
  kills: number,
  maxRunMs: number,
  enough: (ledger: Ledger) => boolean = () => true,
): Promise<void> {
  for (let kill = 0; kill < kills || (kill < kills * 5 && !enough(readLedger(target.file))); kill++) {
    const worker = `w${kill}`;
    const child = await target.start(worker, "ledger", [target.file, worker, target.queue]);
    await child.event("ready");
    await sleep(20 + Math.random() * (maxRunMs - 20));
    await child.kill();
    await target.afterKill(worker);
    checkLedger(readLedger(target.file), await target.storedKeys());
  }
}

/**
 * Once every lock has ended, a drain receives each stored message exactly once and none that was
 * completed, and leaves the queue empty: no message stays locked beyond its lock.
 */
export async function drainAfterLocks(target: LedgerTarget): Promise<void> {
  const ledger = readLedger(target.file);
  const before = await target.storedKeys();
  checkLedger(ledger, before);
  await sleep(target.lockMs + 100);
  const drainer = await target.start("drain", "drain", [target.queue]);
  drainer.tell();
  const { keys } = (await drainer.event("keys", 60_000)) as { keys: string[] };
  await drainer.exit();
  expect(new Set(keys)).toEqual(before);
  expect(keys.length, "a message was drained twice").toBe(new Set(keys).size);
  expect(keys.filter((key) => ledger.completed.has(key))).toEqual([]);
  expect((await target.storedKeys()).size).toBe(0);
}
