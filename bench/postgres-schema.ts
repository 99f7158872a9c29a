import pg from "pg";

/** The database the PostgreSQL benchmarks run on. */
export const POSTGRES_URL = process.env.POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

let schemaCounter = 0;

/** A schema made for one run, and the way to remove it with everything in it. */
export interface BenchSchema {
  readonly name: string;
  drop(): Promise<void>;
}

/** Runs one statement on a connection of its own, so no run's pool is needed to set up or clean up. */
async function onceOn(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Creates a schema no other run uses; `label` (letters, digits, `_`) says whose it is. */
export async function freshSchema(label: string): Promise<BenchSchema> {
  const name = `qr_bench_${label}_${process.pid}_${Date.now().toString(36)}_${schemaCounter++}`;
  await onceOn(`CREATE SCHEMA ${name}`);
  return { name, drop: () => onceOn(`DROP SCHEMA IF EXISTS ${name} CASCADE`) };
}

/** The server settings that decide what a commit costs, as one line. */
export async function postgresSettings(): Promise<string> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; setting: string }>(
      `SELECT name, setting FROM pg_settings
       WHERE name IN ('server_version', 'synchronous_commit', 'fsync', 'wal_sync_method', 'autovacuum')
       ORDER BY name`,
    );
    return rows.map((row) => `${row.name}=${row.setting}`).join(", ");
  } finally {
    await client.end();
  }
}
