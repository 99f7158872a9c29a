import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { createClient } from "../../src/index.js";
import type { MakeModelClient } from "../../src/testing/model/index.js";

/**
 * The memory and sqlite providers as a replay of a shrunk counterexample makes them: clients of
 * one namespace share their queues, and sqlite files live in a directory removed after the file's tests.
 */
export function engineProviders(): Record<string, MakeModelClient> {
  const directory = mkdtempSync(join(tmpdir(), "queue-runtime-model-replay-"));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  return {
    memory: ({ clock, namespace }) =>
      createClient({ provider: { type: "memory", name: namespace, clock }, createQueues: false }),
    sqlite: ({ clock, namespace }) =>
      createClient({
        provider: { type: "sqlite", path: join(directory, `${namespace}.db`), clock },
        createQueues: false,
      }),
  };
}
