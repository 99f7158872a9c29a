import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { createClient } from "../../src/index.js";
import { describeQueueContract } from "../../src/testing/index.js";
import { registerJournalProvider } from "./journal-provider.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-journal-contract-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
registerJournalProvider();

describeQueueContract(
  "journal",
  ({ clock, namespace, createQueues }) =>
    createClient({
      provider: { type: "journal", path: join(directory, `${namespace}.journal`), clock },
      createQueues,
    }),
  { virtualTime: true },
);
