import { MAX_BATCH_ENTRIES } from "../../aws/json-protocol/sqs-validation.js";
import { chunk } from "../../core/batch.js";
import type { OperationContext } from "../../core/provider.js";
import { settleError } from "./batch-results.js";
import type { SqsHttp } from "./sqs-http.js";

/** The most seconds SQS keeps a message invisible (12 hours). */
export const SQS_MAX_VISIBILITY_SECONDS = 43_200;

/** Whole seconds of visibility for a duration, rounded up and within SQS's range. */
export function visibilitySeconds(ms: number): number {
  return Math.min(SQS_MAX_VISIBILITY_SECONDS, Math.max(0, Math.ceil(ms / 1000)));
}

/** Makes a locked message invisible for `seconds` from now (0 releases it); `InvalidReceipt` when the lock is gone. */
export async function changeVisibility(
  http: SqsHttp,
  url: string,
  handle: string,
  seconds: number,
  context: OperationContext,
): Promise<void> {
  try {
    await http.call(
      "ChangeMessageVisibility",
      { QueueUrl: url, ReceiptHandle: handle, VisibilityTimeout: seconds },
      context,
    );
  } catch (error) {
    throw settleError(error);
  }
}

/**
 * Sets the visibility of many locked messages of one queue, ten per call; 0 makes them visible
 * again at once. Resolves how many changed: a message whose lock is already gone is visible anyway.
 */
export async function changeVisibilityOfAll(
  http: SqsHttp,
  url: string,
  handles: readonly string[],
  seconds: number,
  context: OperationContext,
): Promise<number> {
  let changed = 0;
  for (const run of chunk(handles, MAX_BATCH_ENTRIES)) {
    const { Successful = [] } = await http.call(
      "ChangeMessageVisibilityBatch",
      {
        QueueUrl: url,
        Entries: run.map((handle, index) => ({
          Id: String(index),
          ReceiptHandle: handle,
          VisibilityTimeout: seconds,
        })),
      },
      context,
    );
    changed += Successful.length;
  }
  return changed;
}
