import { sqsError } from "../../aws/index.js";
import type { LockReference } from "../../engine/records.js";

/** The receipt handle of a lock: the message's sequence number (base 36) and its lock token. */
export function receiptHandleOf(lock: LockReference): string {
  return `${lock.seq.toString(36)}.${lock.lockToken}`;
}

/** The lock a receipt handle of `queue` names; `ReceiptHandleIsInvalid` when it is not one of ours. */
export function lockOfReceipt(queue: string, receiptHandle: string): LockReference {
  const dot = receiptHandle.indexOf(".");
  const seq = dot > 0 && dot <= 11 ? Number.parseInt(receiptHandle.slice(0, dot), 36) : Number.NaN;
  const lockToken = receiptHandle.slice(dot + 1);
  if (!Number.isSafeInteger(seq) || seq < 1 || lockToken === "" || lockToken.length > 64)
    throw sqsError(
      "ReceiptHandleIsInvalid",
      `The input receipt handle "${receiptHandle.slice(0, 100)}" is not a valid receipt handle.`,
    );
  return { queue, seq, lockToken };
}
