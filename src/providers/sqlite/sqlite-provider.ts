import { realpathSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { ProviderConfig } from "../../core/config.js";
import { QueueError } from "../../core/errors.js";
import { QueueEngine } from "../../engine/queue-engine.js";
import { SqliteStore } from "../../engine/sqlite/sqlite-store.js";
import { fullCapabilitiesWithTopics } from "../../rules/full-capabilities.js";
import { MAX_BATCH_SIZE, maxMessageBytesOf } from "../../rules/limits.js";
import { resolveQueueDefaults } from "../../rules/queue-defaults.js";
import { EngineProvider } from "../engine/engine-provider.js";
import { acquireEngine } from "../engine/shared-engines.js";
import type { SqliteProviderConfig } from "./config.js";

/** How often a waiting receive looks for messages sent by other processes sharing the file. */
export const SQLITE_POLL_INTERVAL_MS = 25;

// One engine per file per process: the same path through a symlink or a relative path is the same file.
function fileKey(path: string): string {
  const absolute = resolve(path);
  try {
    return join(realpathSync(dirname(absolute)), basename(absolute));
  } catch {
    return absolute;
  }
}

/** A provider whose queues live in one SQLite file, shared by every client and process that opens it. */
export async function createSqliteProvider(
  config: ProviderConfig,
  options: { createQueues: boolean },
): Promise<EngineProvider> {
  const sqlite = config as SqliteProviderConfig;
  if (typeof sqlite.path !== "string" || sqlite.path === "")
    throw new QueueError(
      "Configuration",
      "the sqlite provider needs a file path: { type: 'sqlite', path: './queues.db' }",
    );
  if (sqlite.synchronous !== undefined && sqlite.synchronous !== "NORMAL" && sqlite.synchronous !== "FULL")
    throw new QueueError("Configuration", "synchronous must be NORMAL or FULL");
  const capabilities = fullCapabilitiesWithTopics(maxMessageBytesOf(sqlite), MAX_BATCH_SIZE);
  // Checked before the file is opened: a refused config leaves no file behind.
  resolveQueueDefaults(sqlite);
  const create = () =>
    new QueueEngine(new SqliteStore(sqlite.path, { synchronous: sqlite.synchronous ?? "NORMAL" }), {
      ...sqlite,
      createQueues: options.createQueues,
      pollIntervalMs: SQLITE_POLL_INTERVAL_MS,
    });
  const { engine, release } = acquireEngine(`sqlite:${fileKey(sqlite.path)}`, create);
  return new EngineProvider(engine, "sqlite", capabilities, release, { groupCommit: true });
}
