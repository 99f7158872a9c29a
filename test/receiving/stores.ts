// The two receiving stores as tests make them: a fresh SQLite file, or a fresh PostgreSQL schema
// on the local server (127.0.0.1:5432, database test), dropped when the test file ends.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll } from "vitest";
import {
  type PostgresReceivingStoreOptions,
  postgresStore,
  type ReceivingStore,
  type SqliteReceivingStoreOptions,
  sqliteStore,
} from "../../src/receiving/index.js";

/** The local PostgreSQL every machine and CI run have. */
export const POSTGRES_URL =
  process.env.QUEUE_RUNTIME_TEST_POSTGRES ?? "postgres://postgres@127.0.0.1:5432/test";

/** A store made for one test, with a way to look into its tables. */
export interface TestStore {
  readonly store: ReceivingStore;
  /** Runs SQL against the store's tables (the same prefix and schema), resolving the rows. */
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  /** The SQLite path or the PostgreSQL URL a CLI or another process opens this store with. */
  readonly location: string;
  /** The pool of a PostgreSQL store (its search_path on the test's schema). */
  readonly pool?: pg.Pool;
}

/** How to make a store of one kind. */
export interface StoreKind {
  readonly name: "sqlite" | "postgres";
  make(options?: SqliteReceivingStoreOptions & PostgresReceivingStoreOptions): Promise<TestStore>;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

let directory: string | undefined;
let counter = 0;

/** A fresh SQLite file in a directory removed after the test file. */
export function sqliteFile(): string {
  if (directory === undefined) {
    const made = mkdtempSync(join(tmpdir(), "queue-runtime-receiving-"));
    directory = made;
    cleanups.push(() => rmSync(made, { recursive: true, force: true }));
  }
  return join(directory, `store-${process.pid}-${counter++}.db`);
}

/** A fresh PostgreSQL schema, dropped after the test file; resolves its name and a URL whose search_path is it. */
export async function postgresSchema(): Promise<{ schema: string; url: string }> {
  const schema = `qr_test_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  cleanups.push(async () => {
    const dropper = new pg.Client({ connectionString: POSTGRES_URL });
    await dropper.connect();
    await dropper.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await dropper.end();
  });
  const url = new URL(POSTGRES_URL);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return { schema, url: url.toString() };
}

export const sqliteKind: StoreKind = {
  name: "sqlite",
  async make(options) {
    const path = sqliteFile();
    const store = sqliteStore(path, options);
    cleanups.push(() => store.close());
    let db: Database.Database | undefined;
    return {
      store,
      location: path,
      async query(sql, params = []) {
        db ??= new Database(path);
        const statement = db.prepare(sql);
        if (statement.reader) return statement.all(...params) as Record<string, unknown>[];
        statement.run(...params);
        return [];
      },
    };
  },
};

export const postgresKind: StoreKind = {
  name: "postgres",
  async make(options) {
    const { schema, url } = await postgresSchema();
    const pool = new pg.Pool({ connectionString: POSTGRES_URL, options: `-c search_path=${schema}`, max: 4 });
    pool.on("error", () => undefined);
    const store = postgresStore(pool, options);
    cleanups.push(async () => {
      await store.close();
      await pool.end();
    });
    return {
      store,
      location: url,
      pool,
      async query(sql, params = []) {
        // SQLite's placeholders (?) become PostgreSQL's ($1, $2, ...), so one query serves both kinds.
        let n = 0;
        return (
          await pool.query(
            sql.replace(/\?/g, () => `$${++n}`),
            params,
          )
        ).rows;
      },
    };
  },
};

/** Both kinds, for `describe.each`. */
export const STORE_KINDS: readonly StoreKind[] = [sqliteKind, postgresKind];
