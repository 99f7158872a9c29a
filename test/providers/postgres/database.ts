// The local PostgreSQL of every machine and CI (trust auth, database `test`), and a schema of
// its own for each test file, dropped when the file's tests end.
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll } from "vitest";

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
