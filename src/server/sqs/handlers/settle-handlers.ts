import { type BatchResultErrorEntry, checkBatchEntries, sqsError } from "../../../aws/index.js";
import { QueueError } from "../../../core/errors.js";
import type { LockReference } from "../../../engine/records.js";
import type { QueueRecord } from "../../../rules/queue-records.js";
import { lockOfReceipt } from "../receipt-handles.js";
import type { Handlers, ServiceState } from "../sqs-service.js";
import { failedEntry } from "./send-handlers.js";

const expired = (error: unknown) =>
  QueueError.is(error, "InvalidReceipt") && error.providerCode === "MessageNotInflight";

function invalidHandle(receiptHandle: string): Error {
  return sqsError(
    "ReceiptHandleIsInvalid",
    `The input receipt handle "${receiptHandle.slice(0, 100)}" is not a valid receipt handle.`,
  );
}

function expiredHandle(receiptHandle: string): Error {
  return sqsError(
    "InvalidParameterValue",
    `Value ${receiptHandle.slice(0, 100)} for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired.`,
  );
}

/**
 * How a receipt stands against the message it names: the message is gone, was never received
 * (no receipt of it can be real), or this is its latest receipt, or an older one of a message
 * received again since (with the latest's lock token).
 */
type ReceiptStanding =
  | { readonly kind: "gone" | "never-received" | "latest" }
  | { readonly kind: "superseded"; readonly latestToken: string };

function standingOf(state: ServiceState, lock: LockReference): ReceiptStanding {
  const latest = state.engine.lockTokenOf(lock.queue, lock.seq);
  if (latest === undefined) return { kind: "gone" };
  if (latest === null) return { kind: "never-received" };
  return latest === lock.lockToken ? { kind: "latest" } : { kind: "superseded", latestToken: latest };
}

/**
 * As SQS does: a receipt whose message is gone deletes nothing and succeeds; on a standard queue
 * any receipt of the message deletes it, the latest after its visibility timeout and an older
 * one of a message received since alike; on a FIFO queue only the latest does, within its
 * visibility timeout.
 */
function deleteMessage(state: ServiceState, queue: QueueRecord, receiptHandle: string): void {
  const lock = lockOfReceipt(queue.name, receiptHandle);
  const standing = standingOf(state, lock);
  if (standing.kind === "gone") return;
  if (standing.kind === "never-received") throw invalidHandle(receiptHandle);
  if (queue.fifo) {
    if (standing.kind === "superseded") throw expiredHandle(receiptHandle);
    try {
      state.engine.complete(lock);
    } catch (error) {
      if (expired(error)) throw expiredHandle(receiptHandle);
      throw error;
    }
    return;
  }
  const latest = standing.kind === "superseded" ? { ...lock, lockToken: standing.latestToken } : lock;
  state.engine.complete(latest, { allowExpired: true });
}

/**
 * As SQS does: the latest receipt of a message in flight sets how much longer it stays hidden;
 * a receipt whose lock ended, or that a later receive superseded, succeeds and changes nothing
 * (the message may be another receiver's now); one whose message is gone is invalid.
 */
function changeVisibility(
  state: ServiceState,
  queue: QueueRecord,
  receiptHandle: string,
  seconds: number,
): void {
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > 43_200)
    throw sqsError(
      "InvalidParameterValue",
      `Value ${seconds} for parameter VisibilityTimeout is invalid. Reason: Must be between 0 and 43200.`,
    );
  const lock = lockOfReceipt(queue.name, receiptHandle);
  const { kind } = standingOf(state, lock);
  if (kind === "gone" || kind === "never-received") throw invalidHandle(receiptHandle);
  if (kind === "superseded") return;
  try {
    state.engine.extendLock(lock, seconds * 1000);
  } catch (error) {
    if (!expired(error)) throw error;
  }
}

/** Runs one operation per batch entry in a shared commit; each entry fails on its own. */
async function perEntry<E extends { Id: string }>(
  state: ServiceState,
  entries: readonly E[],
  entryShape: string,
  settle: (entry: E) => void,
): Promise<{ Successful: { Id: string }[]; Failed: BatchResultErrorEntry[] }> {
  checkBatchEntries(entries, entryShape);
  return state.writes.run(() => {
    const successful: { Id: string }[] = [];
    const failed: BatchResultErrorEntry[] = [];
    for (const entry of entries) {
      try {
        settle(entry);
        successful.push({ Id: entry.Id });
      } catch (error) {
        if (!(error instanceof QueueError)) throw error;
        failed.push(failedEntry(entry.Id, error));
      }
    }
    return { Successful: successful, Failed: failed };
  });
}

/** DeleteMessage, ChangeMessageVisibility and their batch forms. */
export const settleHandlers: Handlers = {
  async DeleteMessage(state, input) {
    const queue = state.queueOf(input.QueueUrl);
    await state.writes.run(() => deleteMessage(state, queue, input.ReceiptHandle));
    return {};
  },

  DeleteMessageBatch(state, input) {
    const queue = state.queueOf(input.QueueUrl);
    return perEntry(state, input.Entries, "DeleteMessageBatchRequestEntry", (entry) =>
      deleteMessage(state, queue, entry.ReceiptHandle),
    );
  },

  async ChangeMessageVisibility(state, input) {
    const queue = state.queueOf(input.QueueUrl);
    await state.writes.run(() =>
      changeVisibility(state, queue, input.ReceiptHandle, input.VisibilityTimeout),
    );
    return {};
  },

  ChangeMessageVisibilityBatch(state, input) {
    const queue = state.queueOf(input.QueueUrl);
    return perEntry(state, input.Entries, "ChangeMessageVisibilityBatchRequestEntry", (entry) =>
      changeVisibility(
        state,
        queue,
        entry.ReceiptHandle,
        entry.VisibilityTimeout ?? queue.lockDurationMs / 1000,
      ),
    );
  },
};
