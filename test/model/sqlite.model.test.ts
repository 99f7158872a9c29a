import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { createClient } from "../../src/index.js";
import { checkAgainstModel } from "../../src/testing/model/index.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-model-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

// One file per run: both clients of a run open it, and runs share nothing.
checkAgainstModel(
  "sqlite",
  ({ clock, namespace }) =>
    createClient({
      provider: { type: "sqlite", path: join(directory, `${namespace}.db`), clock },
      createQueues: false,
    }),
  { numRuns: 80 },
);
