import type { TableNames } from "../stores/store-options.js";

/** The schema version this code writes; older files are migrated forward, newer ones refused. */
export const SQLITE_SCHEMA_VERSION = 1;

/**
 * The statements that create version 1 of the receiving tables. Ids are AUTOINCREMENT: an id an
 * operator or a subscriber saw never names another row later, and a late settlement of a
 * delivery can never reach one made since.
 */
export function sqliteSchema(t: TableNames): string {
  return `
    CREATE TABLE IF NOT EXISTS ${t.receivedEvents} (
      queue TEXT NOT NULL,
      id TEXT NOT NULL,
      recorded_at INTEGER NOT NULL,
      PRIMARY KEY (queue, id)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS ${t.receivedEvents}_recorded_at ON ${t.receivedEvents} (recorded_at);

    CREATE TABLE IF NOT EXISTS ${t.outbox} (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      queue TEXT NOT NULL,
      event_id TEXT NOT NULL,
      event TEXT NOT NULL,
      payload TEXT NOT NULL,
      created_at INTEGER NOT NULL,
      remaining INTEGER NOT NULL
    );

    CREATE TABLE IF NOT EXISTS ${t.deliveries} (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      outbox_id INTEGER NOT NULL,
      subscriber TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('pending', 'failed', 'dismissed')),
      attempts INTEGER NOT NULL DEFAULT 0,
      due_at INTEGER NOT NULL,
      claimed_until INTEGER NOT NULL DEFAULT 0,
      claim INTEGER NOT NULL DEFAULT 0,
      attempted_at INTEGER,
      failed_at INTEGER,
      dismissed_at INTEGER,
      last_error TEXT
    );
    CREATE INDEX IF NOT EXISTS ${t.deliveries}_due ON ${t.deliveries} (due_at, id) WHERE status = 'pending';
    CREATE INDEX IF NOT EXISTS ${t.deliveries}_failed ON ${t.deliveries} (failed_at) WHERE status = 'failed';
    CREATE INDEX IF NOT EXISTS ${t.deliveries}_dismissed ON ${t.deliveries} (dismissed_at) WHERE status = 'dismissed';

    CREATE TABLE IF NOT EXISTS ${t.parkedMessages} (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      queue TEXT NOT NULL,
      body_hash TEXT NOT NULL,
      body BLOB NOT NULL,
      reason TEXT NOT NULL,
      problems TEXT NOT NULL,
      event TEXT,
      type_at TEXT,
      status TEXT NOT NULL CHECK (status IN ('failed', 'pending', 'dismissed')),
      failed_at INTEGER NOT NULL,
      retried_at INTEGER,
      dismissed_at INTEGER,
      occurrences INTEGER NOT NULL DEFAULT 1,
      UNIQUE (queue, body_hash)
    );
    CREATE INDEX IF NOT EXISTS ${t.parkedMessages}_retried ON ${t.parkedMessages} (retried_at) WHERE status = 'pending';
    CREATE INDEX IF NOT EXISTS ${t.parkedMessages}_dismissed ON ${t.parkedMessages} (dismissed_at) WHERE status = 'dismissed';
  `;
}
