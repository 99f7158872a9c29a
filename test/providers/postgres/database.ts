// The local PostgreSQL of every machine and CI (trust auth, database `test`), and a schema of
// its own for each test file, dropped when the file's tests end.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll } from "vitest";
import type { PgPool } from "../../../src/postgres/pg-pool.js";

/** The database the tests use (`POSTGRES_URL` to point elsewhere). */
export const POSTGRES_URL = process.env.POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A fresh schema name for this file's tests, dropped (with everything in it) after them. */
export function useSchema(): string {
  const schema = `qr_test_${randomBytes(6).toString("hex")}`;
  afterAll(async () => {
    const client = new pg.Client({ connectionString: POSTGRES_URL });
    await client.connect();
    try {
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    } finally {
      await client.end();
    }
  });
  return schema;
}

/** A pool that runs its queries on `pool` and keeps the text of each statement run outside a connection of its own. */
export function countingPool(pool: PgPool): { pool: PgPool; statements: string[] } {
  const statements: string[] = [];
  return {
    statements,
    pool: {
      connect: () => pool.connect(),
      end: async () => undefined,
      query: (query, values) => {
        statements.push(typeof query === "string" ? query : query.text);
        return pool.query(query, values);
      },
    },
  };
}
