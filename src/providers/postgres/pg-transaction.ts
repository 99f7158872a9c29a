import type { PgPool } from "../../postgres/pg-pool.js";
import { type PgQueryable, pgFailure } from "./pg-failures.js";

/**
 * Runs `work` in one transaction on a connection of `pool`: committed when it resolves, rolled
 * back when it throws (a QueueError it throws passes through as it is).
 */
export async function inTransaction<T>(
  pool: PgPool,
  what: string,
  work: (db: PgQueryable) => Promise<T>,
): Promise<T> {
  let client: Awaited<ReturnType<PgPool["connect"]>>;
  try {
    client = await pool.connect();
  } catch (error) {
    throw pgFailure(what, error);
  }
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    client.release();
    return result;
  } catch (error) {
    // A connection whose rollback failed is dropped rather than given back mid-transaction.
    const rolledBack = await client.query("ROLLBACK").then(
      () => true,
      () => false,
    );
    client.release(!rolledBack);
    throw pgFailure(what, error);
  }
}
