import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { createClient } from "../../src/index.js";
import { checkAgainstModel } from "../../src/testing/model/index.js";
import { registerJournalProvider } from "../journal/journal-provider.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-model-journal-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
registerJournalProvider();

// The store of `queue-runtime serve --journal`: one journal file per run, shared by the run's two clients.
checkAgainstModel(
  "journal",
  ({ clock, namespace }) =>
    createClient({
      provider: { type: "journal", path: join(directory, `${namespace}.journal`), clock },
      createQueues: false,
    }),
  { numRuns: 500 },
);
