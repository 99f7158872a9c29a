import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryStore } from "../../src/engine/memory/memory-store.js";
import { QueueEngine } from "../../src/engine/queue-engine.js";
import { SqliteStore } from "../../src/engine/sqlite/sqlite-store.js";
import type { QueueStore } from "../../src/engine/store.js";
import { outgoingMessage } from "../support/outgoing-message.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-purge-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** A message of session `sessionId`. */
const message = (text: string, sessionId: string) => outgoingMessage(text, { sessionId });

const STORES: [string, () => QueueStore][] = [
  ["memory", () => new MemoryStore()],
  ["sqlite", () => new SqliteStore(join(directory, `purge-${Date.now()}-${Math.random()}.db`))],
];

describe.each(STORES)("engine purge (%s store)", (_, makeStore) => {
  it("removes the messages in flight of a FIFO queue and frees their groups at once; an accepted session stays held", async () => {
    const engine = new QueueEngine(makeStore());
    try {
      engine.createQueue("orders.fifo", { requiresSession: true });
      engine.send("orders.fifo", [message("a1", "a"), message("a2", "a"), message("b1", "b")]);
      const text = (record: { body: Uint8Array }) => Buffer.from(record.body).toString();
      const first = await engine.receive("orders.fifo", 1, text);
      expect(first).toEqual(["a1"]);
      const session = await engine.acceptSession("orders.fifo", "b");
      expect(engine.purge("orders.fifo")).toBe(3);
      expect(engine.stats("orders.fifo")).toMatchObject({ active: 0, inFlight: 0, delayed: 0 });
      engine.send("orders.fifo", [message("a3", "a"), message("b2", "b")]);
      // Group a is free again; b is still the accepted session's.
      expect(await engine.receive("orders.fifo", 10, text)).toEqual(["a3"]);
      expect(await engine.receiveFromSession(session, 10, text)).toEqual(["b2"]);
    } finally {
      await engine.close();
    }
  });
});
