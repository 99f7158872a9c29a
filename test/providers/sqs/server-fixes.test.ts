import {
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";
import { afterAll, describe, expect, test } from "vitest";
import { CREDENTIALS, useSqsServer } from "./server.js";

const server = useSqsServer();
const clients: SQSClient[] = [];
afterAll(() => {
  for (const client of clients) client.destroy();
});

function sdk(): SQSClient {
  const client = new SQSClient({
    endpoint: server.endpoint(),
    region: "us-east-1",
    credentials: CREDENTIALS,
  });
  clients.push(client);
  return client;
}

describe("queue-runtime serve on the in-memory store, as SQS behaves", () => {
  test("a FIFO group whose only message is made visible again is delivered again", async () => {
    const sqs = sdk();
    const { QueueUrl } = await sqs.send(
      new CreateQueueCommand({
        QueueName: "single-message-group.fifo",
        Attributes: { FifoQueue: "true", ContentBasedDeduplication: "true" },
      }),
    );
    await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "only", MessageGroupId: "g" }));
    const first = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    expect(first.Messages?.map((message) => message.Body)).toEqual(["only"]);
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl,
        ReceiptHandle: first.Messages![0]!.ReceiptHandle!,
        VisibilityTimeout: 0,
      }),
    );
    const again = await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    expect(again.Messages?.map((message) => message.Body)).toEqual(["only"]);
  });
});
