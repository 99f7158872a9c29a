import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import type { DrainWork } from "./lib.js";

/**
 * The AWS SDK's side of {@link drain}: `SendMessageBatch` of `bodies`, `ReceiveMessage` of up to
 * as many (long-polling 1 s once everything is sent), `DeleteMessageBatch` of what came.
 */
export function sdkWork(
  clientOf: (worker: number) => SQSClient,
  QueueUrl: string,
  bodies: readonly string[],
): DrainWork {
  const entries = bodies.map((MessageBody, i) => ({ Id: `m${i}`, MessageBody }));
  return {
    send: (worker) => clientOf(worker).send(new SendMessageBatchCommand({ QueueUrl, Entries: entries })),
    async receiveAndSettle(worker, allSent) {
      const sqs = clientOf(worker);
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl,
          MaxNumberOfMessages: entries.length,
          WaitTimeSeconds: allSent ? 1 : 0,
        }),
      );
      if (Messages.length === 0) return 0;
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl,
          Entries: Messages.map((message, i) => ({ Id: `d${i}`, ReceiptHandle: message.ReceiptHandle! })),
        }),
      );
      return Messages.length;
    },
  };
}
