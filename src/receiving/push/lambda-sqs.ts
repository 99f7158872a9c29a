import { QueueError } from "../../core/errors.js";
import type { Receiver } from "../receiver.js";
import type { PushAdapterOptions } from "./cloudflare-queues.js";

/** A record of the event an AWS Lambda function receives from SQS. */
export interface SqsEventRecord {
  readonly messageId: string;
  readonly body: string;
  /** `arn:aws:sqs:<region>:<account>:<queue name>`. */
  readonly eventSourceARN: string;
}

/** The event an AWS Lambda function receives from SQS. */
export interface SqsEvent {
  readonly Records: readonly SqsEventRecord[];
}

/** The partial batch response Lambda reads (with `ReportBatchItemFailures` on the event source mapping). */
export interface SqsBatchResponse {
  batchItemFailures: { itemIdentifier: string }[];
}

/**
 * A Lambda handler for SQS events: `export const handler = sqsEventHandler(receiver)`. Messages
 * the store has taken are reported done; the ones it could not are reported as failures, so SQS
 * delivers them again and its redrive policy takes one that keeps failing.
 */
export function sqsEventHandler(
  receiver: Receiver,
  options: PushAdapterOptions = {},
): (event: SqsEvent) => Promise<SqsBatchResponse> {
  return async (event) => {
    const byQueue = new Map<string, SqsEventRecord[]>();
    for (const record of event.Records) {
      const source = record.eventSourceARN.slice(record.eventSourceARN.lastIndexOf(":") + 1);
      const queue = options.queue ?? receiver.queueNamed(source);
      if (queue === undefined)
        throw new QueueError("QueueNotFound", `the receiver reads no queue for SQS queue ${source}`);
      byQueue.set(queue, [...(byQueue.get(queue) ?? []), record]);
    }
    const batchItemFailures: { itemIdentifier: string }[] = [];
    for (const [queue, records] of byQueue) {
      const outcomes = await receiver.receiveBatch(queue, records);
      for (const [index, record] of records.entries())
        if (outcomes[index] === "left") batchItemFailures.push({ itemIdentifier: record.messageId });
    }
    return { batchItemFailures };
  };
}
