import { QueueError } from "../../core/errors.js";
import type { OperationContext } from "../../core/provider.js";
import type { ReceiptHandle } from "../../core/receipt-handle.js";
import { queueNameOfUrl, type SqsQueue, type SqsQueueSettings } from "./queue-urls.js";
import type { SqsContext } from "./sqs-context.js";

// Neither queue URLs nor SQS receipt handles contain it.
const SEPARATOR = "|";

/** What an SQS receipt's token holds: the queue URL and SQS's own receipt handle. */
export interface SqsReceipt {
  readonly url: string;
  readonly handle: string;
}

/** The token of a receipt: self-contained, so another client can settle the message. */
export function receiptToken(url: string, handle: string): string {
  return `${url}${SEPARATOR}${handle}`;
}

/** The queue URL and SQS receipt handle of a receipt; `InvalidReceipt` when it was not issued by this provider. */
export function parseReceipt(receipt: ReceiptHandle): SqsReceipt {
  const token = receipt.token;
  const separator = token.indexOf(SEPARATOR);
  const url = separator > 0 ? token.slice(0, separator) : "";
  const handle = token.slice(separator + 1);
  if (
    separator <= 0 ||
    handle === "" ||
    !(url.startsWith("https://") || url.startsWith("http://")) ||
    queueNameOfUrl(url) !== receipt.queue
  )
    throw new QueueError("InvalidReceipt", "this receipt handle does not refer to an SQS message lock");
  return { url, handle };
}

/**
 * The settings of a receipt's queue (`fresh`: read now, not from the cache); a queue deleted since
 * makes the receipt invalid, as on every provider.
 */
export async function receiptQueueSettings(
  sqs: SqsContext,
  url: string,
  context: OperationContext,
  fresh = false,
): Promise<{ queue: SqsQueue; settings: SqsQueueSettings }> {
  const queue = sqs.directory.fromUrl(url);
  try {
    const settings = await (fresh
      ? sqs.directory.freshSettings(queue, context)
      : sqs.directory.settings(queue, context));
    return { queue, settings };
  } catch (error) {
    if (QueueError.is(error, "QueueNotFound"))
      throw new QueueError("InvalidReceipt", `queue ${queue.name} of this receipt no longer exists`);
    throw error;
  }
}
