import { QueueError, SOCKET_ERROR_CODES } from "../../core/errors.js";
import type { PgPool } from "../../postgres/pg-pool.js";

/** What runs a statement: a pool, or one connection of it inside a transaction. */
export type PgQueryable = Pick<PgPool, "query">;

/** SQLSTATE classes of a connection that failed or was cut (08), and of a server going away (57). */
const CONNECTION_CLASSES = new Set(["08", "57"]);
/** SQLSTATEs worth trying again: serialization failures and deadlocks, lock and statement timeouts. */
const TRANSIENT_STATES = new Set(["40001", "40P01", "55P03", "57014"]);
/** The SQLSTATEs our own functions raise: a session lock that is gone, a session another holds. */
const SESSION_LOCK_LOST = "QR001";
const SESSION_HELD = "QR002";
/**
 * A node-postgres failure as a QueueError: a connection that could not be made or was lost is
 * `ConnectionFailed` (transient), lock waits and serialization failures transient `Provider`
 * errors, anything else a `Provider` error with the SQLSTATE kept.
 */
export function pgFailure(description: string, error: unknown): QueueError {
  if (error instanceof QueueError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  const text = error instanceof Error ? error.message : String(error);
  const message = `${description}: ${text}`;
  const options = { cause: error, ...(typeof code === "string" ? { providerCode: code } : {}) };
  if (typeof code === "string" && (SOCKET_ERROR_CODES.has(code) || CONNECTION_CLASSES.has(code.slice(0, 2))))
    return new QueueError("ConnectionFailed", message, options);
  if (code === SESSION_LOCK_LOST)
    return new QueueError(
      "SessionLockLost",
      `${description}: the session lock has ended or was released`,
      options,
    );
  if (code === SESSION_HELD) return new QueueError("SessionLocked", message, options);
  if (/Connection terminated|connection (is )?closed|Client has encountered a connection error/i.test(text))
    return new QueueError("ConnectionFailed", message, options);
  return new QueueError("Provider", message, {
    ...options,
    isTransient: typeof code === "string" && TRANSIENT_STATES.has(code),
  });
}

/**
 * Runs one statement on `pool`; a failure is a QueueError saying what was being done. A `name`
 * prepares the statement once per connection (for the statements of every send and receive).
 */
export async function pgQuery<Row>(
  pool: PgQueryable,
  text: string,
  values: unknown[],
  what: string,
  name?: string,
) {
  try {
    return await pool.query<Row>(name === undefined ? { text, values } : { name, text, values });
  } catch (error) {
    throw pgFailure(what, error);
  }
}
