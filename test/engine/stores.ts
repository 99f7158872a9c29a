// The engine's stores for tests that run on each: each `open` of one kind reopens the same file, as a restart would.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { JournalStore } from "../../src/engine/journal/journal-store.js";
import { MemoryStore } from "../../src/engine/memory/memory-store.js";
import { SqliteStore } from "../../src/engine/sqlite/sqlite-store.js";
import type { QueueStore } from "../../src/engine/store.js";

/** A kind of store: `make` gives an `open` that opens (or, for a durable one, reopens) one store. */
export interface StoreKind {
  readonly name: string;
  readonly durable: boolean;
  make(): () => QueueStore;
}

/** The memory, SQLite and journal stores, durable ones in a directory removed after the test file. */
export function storeKinds(prefix: string): StoreKind[] {
  const directory = mkdtempSync(join(tmpdir(), `queue-runtime-${prefix}-`));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  let files = 0;
  return [
    {
      name: "memory",
      durable: false,
      make: () => {
        const store = new MemoryStore();
        return () => store;
      },
    },
    {
      name: "sqlite",
      durable: true,
      make: () => {
        const path = join(directory, `s-${files++}.db`);
        return () => new SqliteStore(path);
      },
    },
    {
      name: "journal",
      durable: true,
      make: () => {
        const path = join(directory, `j-${files++}.log`);
        return () => new JournalStore(path);
      },
    },
  ];
}
