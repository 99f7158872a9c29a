// Behaviours of AWS SQS that real clients (sqs-consumer, boto3, the AWS CLI) met and the server
// once got wrong: each test fails without its fix.
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import { describe, expect, it } from "vitest";
import { queueName, useSqsServer } from "./harness.js";

const { sqs, client, engine } = useSqsServer();

/** A new queue's URL. */
async function queue(attributes: Record<string, string> = {}, fifo = false): Promise<string> {
  const QueueName = queueName("fidelity", fifo);
  return (await sqs().send(new CreateQueueCommand({ QueueName, Attributes: attributes }))).QueueUrl!;
}

/** Resolves once `count` receives wait on `queue`. */
async function waitingOn(queue: string, count: number): Promise<void> {
  const name = queue.slice(queue.lastIndexOf("/") + 1);
  while (engine().waitingReceivers(name) < count) await new Promise((resolve) => setTimeout(resolve, 5));
}

describe("SQS server: fidelity to AWS SQS", () => {
  it.each([
    ["standard", false],
    ["FIFO", true],
  ])(
    "a long poll its client abandoned takes no message (%s): the next receiver gets it at once, its receive count 1",
    async (_, fifo) => {
      const QueueUrl = await queue(
        fifo
          ? { VisibilityTimeout: "60", FifoQueue: "true", ContentBasedDeduplication: "true" }
          : { VisibilityTimeout: "60" },
        fifo,
      );
      const poller: SQSClient = client();
      const sender: SQSClient = client();
      for (let round = 0; round < 15; round++) {
        const abandoned = new AbortController();
        const dead = poller
          .send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 20 }), {
            abortSignal: abandoned.signal,
          })
          .catch(() => undefined);
        await waitingOn(QueueUrl, 1);
        // The abort and the send reach the server together: the send must not feed the dead poll.
        abandoned.abort();
        await sender.send(
          new SendMessageCommand({
            QueueUrl,
            MessageBody: `round ${round}`,
            ...(fifo ? { MessageGroupId: "one-group" } : {}),
          }),
        );
        await dead;
        const next = await sqs().send(
          new ReceiveMessageCommand({
            QueueUrl,
            WaitTimeSeconds: 2,
            MessageSystemAttributeNames: ["ApproximateReceiveCount"],
          }),
        );
        expect(next.Messages?.map((message) => message.Body)).toEqual([`round ${round}`]);
        expect(next.Messages![0]!.Attributes?.ApproximateReceiveCount).toBe("1");
        await sqs().send(
          new DeleteMessageCommand({
            QueueUrl,
            ReceiptHandle: next.Messages![0]!.ReceiptHandle!,
          }),
        );
      }
    },
    60_000,
  );
});
