import { apiCode } from "./errors.js";

/** True when a KV create or update lost to another writer (the revision it expected was no longer the last). */
export function lostRace(error: unknown): boolean {
  const cause = (error as { cause?: unknown }).cause ?? error;
  return (
    apiCode(cause) === 10071 || /wrong last sequence|key exists/i.test(String((cause as Error)?.message))
  );
}

/** How many times a read-modify-write of one key is tried against others writing it. */
export const MAX_RACES = 20;
