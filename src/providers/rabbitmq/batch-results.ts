import type { BatchEntryResult } from "../../core/errors.js";

/** The refusals that concern one message of a batch, not the call. */
const PER_MESSAGE: ReadonlySet<string> = new Set(["Validation", "MessageTooLarge", "Unsupported"]);

/**
 * Resolves a batch's results, or throws the failure of the whole call (no queue, no broker) when
 * every message failed with it; refusals of single messages stay results.
 */
export function resultsOrFailure(results: BatchEntryResult[]): BatchEntryResult[] {
  const first = results[0];
  if (
    first !== undefined &&
    !first.ok &&
    !PER_MESSAGE.has(first.error.code) &&
    results.every((result) => !result.ok)
  )
    throw first.error;
  return results;
}
