// Reads never create queues, on every provider that creates queues on first use: only a send or
// createQueue does. A receive on a queue that does not exist yet waits for the send that makes it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createClient, type QueueClient } from "../../src/index.js";
import { POSTGRES_URL, useSchema } from "./postgres/database.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-reads-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
const schema = useSchema();

const PROVIDERS: [string, () => Promise<QueueClient>][] = [
  ["memory", () => createClient("memory:reads-create-nothing")],
  ["sqlite", () => createClient(`sqlite:${join(directory, "reads.db")}`)],
  ["postgres", () => createClient(`${POSTGRES_URL}?schema=${schema}`)],
];

describe.each(PROVIDERS)("reads never create queues (%s)", (_, open) => {
  it("stats of an unknown queue are QueueNotFound; a receive waits for the send that makes its queue", async () => {
    const reader = await open();
    const writer = await open();
    try {
      await expect(reader.admin.getQueueStats("never-made")).rejects.toMatchObject({ code: "QueueNotFound" });
      expect(await reader.receiveMessages("not-yet", 10, 0)).toEqual([]);
      await expect(reader.acceptSession("not-yet.fifo", undefined, 0)).rejects.toMatchObject({
        code: "NoSessionAvailable",
      });
      await expect(reader.acceptSession("not-yet.fifo", "s")).rejects.toMatchObject({
        code: "QueueNotFound",
      });
      const names = await reader.admin.listQueues();
      expect(names.filter((name) => name.startsWith("never-made") || name.startsWith("not-yet"))).toEqual([]);
      const waiting = reader.receiveMessage("not-yet", 5_000);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await reader.admin.getQueue("not-yet")).toBeNull();
      await writer.sendMessage("not-yet", "made by this send");
      expect((await waiting)?.text()).toBe("made by this send");
    } finally {
      await reader.close();
      await writer.close();
    }
  });
});
