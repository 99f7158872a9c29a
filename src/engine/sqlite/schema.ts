import type BetterSqlite3 from "better-sqlite3";
import { QueueError } from "../../core/errors.js";

/** The schema version this code writes; older files are migrated on open, newer ones refused. */
export const SCHEMA_VERSION = 2;

// Every index serves one question of the store, so each receive is a short index range scan
// whatever the depth: ready messages by sequence, due delays and locks by time, expiries by
// time, a group's messages by sequence, and free groups by their oldest ready message. Queues are
// numbered (smaller keys in every index); what never changes of a message is one payload column.
const VERSION_1 = `
CREATE TABLE IF NOT EXISTS queues (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  settings TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS messages (
  seq INTEGER PRIMARY KEY,
  queue INTEGER NOT NULL,
  session_id TEXT,
  expires_at INTEGER,
  state INTEGER NOT NULL,
  visible_at INTEGER NOT NULL,
  lock_token TEXT,
  delivery_count INTEGER NOT NULL,
  first_delivered_at INTEGER,
  delivered_at INTEGER,
  payload BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_ready ON messages (queue, seq) WHERE state = 0;
CREATE INDEX IF NOT EXISTS messages_due ON messages (queue, visible_at, state) WHERE state > 0;
CREATE INDEX IF NOT EXISTS messages_expiry ON messages (queue, expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX IF NOT EXISTS messages_group ON messages (queue, session_id, state, seq) WHERE session_id IS NOT NULL;

CREATE TABLE IF NOT EXISTS groups (
  queue INTEGER NOT NULL,
  session_id TEXT NOT NULL,
  lock_kind TEXT,
  lock_token TEXT,
  locked_until INTEGER NOT NULL DEFAULT 0,
  state BLOB,
  head_seq INTEGER,
  PRIMARY KEY (queue, session_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS groups_head ON groups (queue, head_seq) WHERE head_seq IS NOT NULL;
CREATE INDEX IF NOT EXISTS groups_lock ON groups (queue, locked_until);

CREATE TABLE IF NOT EXISTS duplicates (
  queue INTEGER NOT NULL,
  deduplication_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (queue, deduplication_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS duplicates_expiry ON duplicates (expires_at);
`;

// Topics and their subscriptions: a subscription's messages are the queue its path names.
const VERSION_2 = `
CREATE TABLE IF NOT EXISTS topics (
  name TEXT PRIMARY KEY,
  settings TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS subscriptions (
  topic TEXT NOT NULL,
  name TEXT NOT NULL,
  settings TEXT NOT NULL,
  PRIMARY KEY (topic, name)
) WITHOUT ROWID;
`;

/** Each step takes the file from version `index` to `index + 1`. */
const MIGRATIONS: readonly string[] = [VERSION_1, VERSION_2];

/**
 * Opens a file's schema: sets the pragmas, then creates or migrates it to {@link SCHEMA_VERSION}
 * inside one write transaction, so processes opening a new file at once do not race.
 */
export function openSchema(
  db: BetterSqlite3.Database,
  synchronous: "NORMAL" | "FULL",
  busyTimeoutMs: number,
): void {
  db.pragma(`busy_timeout = ${busyTimeoutMs}`);
  // Only takes effect before the first table exists; lets the store hand free pages back to the file system.
  db.pragma("auto_vacuum = INCREMENTAL");
  const mode = db.pragma("journal_mode = WAL", { simple: true });
  if (mode !== "wal" && db.name !== ":memory:")
    throw new QueueError(
      "Configuration",
      `SQLite could not switch ${db.name} to WAL mode (got ${String(mode)})`,
    );
  db.pragma(`synchronous = ${synchronous}`);
  db.pragma("foreign_keys = OFF");
  db.exec("BEGIN IMMEDIATE");
  try {
    const version = db.pragma("user_version", { simple: true }) as number;
    if (version > SCHEMA_VERSION)
      throw new QueueError(
        "Configuration",
        `${db.name} has schema version ${version}; this queue-runtime understands up to ${SCHEMA_VERSION}`,
      );
    for (let step = version; step < MIGRATIONS.length; step++) db.exec(MIGRATIONS[step]!);
    if (version < SCHEMA_VERSION) db.pragma(`user_version = ${SCHEMA_VERSION}`);
    db.exec("COMMIT");
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
}
