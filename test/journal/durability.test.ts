import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { JournalStore } from "../../src/engine/journal/journal-store.js";
import { createClient, type QueueClient } from "../../src/index.js";
import { run, stopAll } from "../server/sqs/cli-process.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-journal-kill-"));
afterAll(() => {
  stopAll();
  rmSync(directory, { recursive: true, force: true });
});

const KILLS = 6;

interface Ledger {
  readonly sent: Set<string>;
  /** Keys whose delete was asked for: they may be gone without their answer having come. */
  readonly completing: Set<string>;
  readonly completed: Set<string>;
}

/** Sends, receives and deletes until the server goes away, noting what the server acknowledged. */
async function work(client: QueueClient, ledger: Ledger, round: number): Promise<void> {
  try {
    for (let batch = 0; ; batch++) {
      const keys = Array.from({ length: 5 }, (_, i) => `${round}-${batch}-${i}`);
      await client.sendMessages("ledger", keys);
      for (const key of keys) ledger.sent.add(key);
      for (const message of await client.receiveMessages("ledger", 5)) {
        // Every third stays locked: a kill must leave it stored, to come back once its lock ends.
        if (Number(message.text().split("-")[2]) % 3 === 0) continue;
        ledger.completing.add(message.text());
        await client.completeMessage(message.receiptHandle);
        ledger.completed.add(message.text());
      }
    }
  } catch {
    // The server was killed.
  }
}

function storedKeys(path: string): Set<string> {
  const store = new JournalStore(path);
  try {
    const ledger = store.contents("ledger");
    return new Set(ledger?.messages.map((message) => Buffer.from(message.body).toString()) ?? []);
  } finally {
    store.close();
  }
}

describe("journal durability under SIGKILL", () => {
  it(`keeps every acknowledged send and delete of the server across ${KILLS} kills at random moments`, async () => {
    const path = join(directory, "ledger.journal");
    const ledger: Ledger = { sent: new Set(), completing: new Set(), completed: new Set() };
    for (let round = 0; round < KILLS; round++) {
      const server = run(["serve", "--journal", path, "--port", "0", "--no-auth"]);
      await server.started;
      const { endpoint } = server;
      const client = await createClient({
        provider: {
          type: "sqs",
          endpoint,
          region: "us-east-1",
          credentials: { accessKeyId: "k", secretAccessKey: "s" },
        },
        retryPolicy: { maxAttempts: 1 },
      });
      if (round === 0) await client.admin.createQueue("ledger", { deadLetterQueue: null });
      const working = work(client, ledger, round);
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 300));
      server.child.kill("SIGKILL");
      await server.exit();
      await working;
      await client.close();

      const stored = storedKeys(path);
      const lost = [...ledger.sent].filter((key) => !stored.has(key) && !ledger.completing.has(key));
      expect(lost, "messages whose send was answered are lost").toEqual([]);
      expect(
        [...ledger.completed].filter((key) => stored.has(key)),
        "deleted messages came back",
      ).toEqual([]);
    }
    expect(ledger.sent.size).toBeGreaterThan(KILLS * 5);
    expect(ledger.completed.size).toBeGreaterThan(0);
  }, 60_000);
});
