import { QueueError } from "../../core/errors.js";
import type { ReceiptHandle } from "../../core/receipt-handle.js";

const LOCK_TOKEN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Lock tokens are UUIDs, which hold no '~'. */
const SESSION_SEPARATOR = "~";

/** What a Service Bus receipt's token holds: the lock token, and the session of a session message. */
export interface ServiceBusReceipt {
  readonly lockToken: string;
  readonly sessionId: string | undefined;
}

/** The token of a receipt: self-contained, so another client can settle the message by its lock token. */
export function receiptToken(lockToken: string, sessionId: string | undefined): string {
  const token = lockToken.toLowerCase();
  return sessionId === undefined ? token : `${token}${SESSION_SEPARATOR}${encodeURIComponent(sessionId)}`;
}

/** The lock token and session of a receipt; `InvalidReceipt` when it was not issued by this provider. */
export function parseReceipt(receipt: ReceiptHandle): ServiceBusReceipt {
  const separator = receipt.token.indexOf(SESSION_SEPARATOR);
  const lockToken = separator < 0 ? receipt.token : receipt.token.slice(0, separator);
  if (!LOCK_TOKEN.test(lockToken))
    throw new QueueError(
      "InvalidReceipt",
      "this receipt handle does not refer to a Service Bus message lock",
    );
  if (separator < 0) return { lockToken: lockToken.toLowerCase(), sessionId: undefined };
  try {
    return {
      lockToken: lockToken.toLowerCase(),
      sessionId: decodeURIComponent(receipt.token.slice(separator + 1)),
    };
  } catch {
    throw new QueueError("InvalidReceipt", "the session in this receipt handle is not valid");
  }
}
