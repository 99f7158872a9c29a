// The multi-process cases every provider that is shared across processes runs alike: a session
// lock held by one process, and the ledger across SIGKILLs. Each provider's test file gives its
// own way of starting a child and of reading what its queue stores.
import { expect } from "vitest";
import type { QueueClient } from "../../src/index.js";
import type { JsonLinesChild } from "./json-lines-child.js";
import { drainAfterLocks, killRepeatedly, type LedgerTarget, readLedger } from "./ledger.js";

/** Starts a child as `role` (a name unique within the test) in `mode` with `args`. */
export type StartChild = (role: string, mode: string, args: readonly string[]) => Promise<JsonLinesChild>;

/**
 * A session held by one process is refused to another by name, passed over by an accept of any,
 * and free once closed; resolves the last child, which holds session `a` of `orders.fifo`.
 */
export async function sessionHeldAcrossProcesses(
  client: QueueClient,
  start: StartChild,
): Promise<JsonLinesChild> {
  await client.admin.createQueue("orders.fifo", { requiresSession: true });
  await client.sendMessages("orders.fifo", [
    { body: "a1", sessionId: "a" },
    { body: "b1", sessionId: "b" },
  ]);
  const holder = await start("holder", "hold-session", ["orders.fifo", "a"]);
  expect((await holder.event("held")).held).toBe("a");
  const refused = await start("refused", "accept", ["orders.fifo", "a"]);
  expect((await refused.event("error")).error).toBe("SessionLocked");
  const next = await start("next", "accept", ["orders.fifo", ""]);
  expect((await next.event("accepted")).accepted).toBe("b");
  holder.tell();
  await holder.event("closed");
  const after = await start("after", "accept", ["orders.fifo", "a"]);
  expect((await after.event("accepted")).accepted).toBe("a");
  return after;
}

/**
 * 20 SIGKILLs of a worker at random moments lose no acknowledged send and bring back no
 * acknowledged complete; then every message still stored is delivered once its lock expires.
 */
export async function ledgerAcrossKills(client: QueueClient, target: LedgerTarget): Promise<void> {
  await client.admin.createQueue(target.queue, { lockDurationMs: target.lockMs, maxDeliveryCount: null });
  await killRepeatedly(target, 20, 300, (ledger) => ledger.sent.size > 20 * 5 && ledger.completed.size > 0);
  const ledger = readLedger(target.file);
  expect(ledger.sent.size).toBeGreaterThan(20 * 5);
  expect(ledger.completed.size).toBeGreaterThan(0);
  await drainAfterLocks(target);
}
