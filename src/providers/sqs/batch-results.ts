import { classifyAwsError } from "../../aws/json-protocol/error-classification.js";
import type { BatchResultErrorEntry } from "../../aws/json-protocol/sqs-types.js";
import { QueueError } from "../../core/errors.js";

/**
 * The error of a failed batch entry: SQS's code mapped as for a whole answer, and transient when
 * SQS says the fault is its own (`SenderFault: false`).
 */
export function entryError(entry: BatchResultErrorEntry): QueueError {
  const message = entry.Message ?? `${entry.Code} (batch entry ${entry.Id})`;
  const { code, transient } = classifyAwsError(entry.Code, entry.SenderFault ? 400 : 500, message);
  return new QueueError(code, message, {
    isTransient: transient || !entry.SenderFault,
    providerCode: entry.Code,
  });
}

/** The error of a batch entry that SQS answered neither as successful nor as failed. */
export function missingEntryError(operation: string, id: string): QueueError {
  return new QueueError("Provider", `${operation} answered nothing for entry ${id}`, { isTransient: false });
}

// SQS's ways of saying a receipt no longer holds its message, besides ReceiptHandleIsInvalid.
const RECEIPT_GONE =
  /receipt handle has expired|does not exist or is not available|not a valid receipt handle/i;

/**
 * An error of a settle call (delete, visibility change) as the settle contract names it: a
 * receipt whose lock is gone, or whose queue is gone, fails with `InvalidReceipt`.
 */
export function settleError(error: unknown): unknown {
  if (!(error instanceof QueueError) || error.code === "InvalidReceipt") return error;
  if (error.code === "QueueNotFound" || (error.code === "Validation" && RECEIPT_GONE.test(error.message)))
    return new QueueError("InvalidReceipt", `the lock of this receipt is gone: ${error.message}`, {
      cause: error,
      ...(error.providerCode === undefined ? {} : { providerCode: error.providerCode }),
    });
  return error;
}
