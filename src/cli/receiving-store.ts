import { existsSync, statSync } from "node:fs";
import Database from "better-sqlite3";
import { QueueError } from "../core/errors.js";
import { DEFAULT_TABLE_PREFIX, postgresStore, type ReceivingStore, sqliteStore } from "../receiving/index.js";
import { messageOf } from "./output.js";

/** Where an operator tool finds a receiver's store: a SQLite path or a PostgreSQL URL, and its table prefix. */
export interface ReceivingStoreLocation {
  readonly location: string;
  readonly tablePrefix: string | undefined;
}

/** A PostgreSQL URL names a postgres store; anything else is a SQLite path. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** The store `at` names, made but not opened (a `Configuration` error for a prefix or URL it refuses). */
export function receivingStoreAt(at: ReceivingStoreLocation): ReceivingStore {
  const options = at.tablePrefix === undefined ? {} : { tablePrefix: at.tablePrefix };
  return isPostgresUrl(at.location) ? postgresStore(at.location, options) : sqliteStore(at.location, options);
}

/**
 * Refuses a SQLite path that holds no receiving store (no file, or no receiving tables of this
 * prefix), so that a mistyped path or prefix never creates a new store.
 */
export function checkSqliteStore(at: ReceivingStoreLocation): void {
  if (isPostgresUrl(at.location)) return;
  const path = at.location;
  const none = (why: string) => new QueueError("Configuration", `no receiving store is at ${path}: ${why}`);
  if (!existsSync(path)) throw none("there is no such file");
  if (statSync(path).isDirectory()) throw none("it is a directory");
  const table = `${at.tablePrefix ?? DEFAULT_TABLE_PREFIX}receiving_schema`;
  let found: unknown;
  try {
    const db = new Database(path, { fileMustExist: true });
    try {
      found = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table);
    } finally {
      db.close();
    }
  } catch (error) {
    throw new QueueError("Configuration", `cannot open ${path}: ${messageOf(error)}`, { cause: error });
  }
  if (found === undefined)
    throw none(`it has no ${table} table (another --table-prefix, or not a receiving store)`);
}
