import { type BatchResultErrorEntry, checkBatchEntries, sqsError } from "../../../aws/index.js";
import { QueueError } from "../../../core/errors.js";
import type { QueueRecord } from "../../../engine/records.js";
import { lockOfReceipt } from "../receipt-handles.js";
import type { Handlers, ServiceState } from "../sqs-service.js";
import { failedEntry } from "./send-handlers.js";

const expired = (error: unknown) =>
  QueueError.is(error, "InvalidReceipt") && error.providerCode === "MessageNotInflight";

function invalidHandle(receiptHandle: string, error: unknown): Error {
  if (QueueError.is(error, "InvalidReceipt"))
    return sqsError(
      "ReceiptHandleIsInvalid",
      `The input receipt handle "${receiptHandle.slice(0, 100)}" is not a valid receipt handle.`,
    );
  return error as Error;
}

// Standard queues let the latest receipt delete its message after the visibility timeout; FIFO queues do not.
function deleteMessage(state: ServiceState, queue: QueueRecord, receiptHandle: string): void {
  try {
    state.engine.complete(lockOfReceipt(queue.name, receiptHandle), { allowExpired: !queue.fifo });
  } catch (error) {
    if (queue.fifo && expired(error))
      throw sqsError(
        "InvalidParameterValue",
        `Value ${receiptHandle.slice(0, 100)} for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired.`,
      );
    throw invalidHandle(receiptHandle, error);
  }
}

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
  try {
    state.engine.extendLock(lockOfReceipt(queue.name, receiptHandle), seconds * 1000);
  } catch (error) {
    if (expired(error)) throw sqsError("MessageNotInflight", "The message referred to isn't in flight.");
    throw invalidHandle(receiptHandle, error);
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
