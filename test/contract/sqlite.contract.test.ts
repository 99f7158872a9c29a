import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { createClient } from "../../src/index.js";
import { describeQueueContract } from "../../src/testing/index.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-contract-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describeQueueContract(
  "sqlite",
  ({ clock, namespace, createQueues }) =>
    createClient({
      provider: { type: "sqlite", path: join(directory, `${namespace}.db`), clock },
      createQueues,
    }),
  { virtualTime: true },
);
