import type { QueueError } from "../../core/errors.js";
import { storeRefused, storeUnavailable } from "../stores/store-errors.js";

/**
 * SQLSTATE classes of what the data itself breaks, refused every time: data exceptions (a NUL
 * in text, `\u0000` in jsonb), integrity constraints, program limits (an index row too large),
 * and an exception raised by a trigger.
 */
const REFUSED_CLASSES = new Set(["22", "23", "54", "P0"]);

/** A node-postgres failure as a QueueError: refused as a statement, or unavailable now (connection, locks, timeouts, anything else). */
export function postgresFailure(description: string, error: unknown): QueueError {
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code))
    return REFUSED_CLASSES.has(code.slice(0, 2))
      ? storeRefused(description, error, code)
      : storeUnavailable(description, error, code);
  return storeUnavailable(description, error, typeof code === "string" ? code : undefined);
}
