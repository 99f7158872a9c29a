import {
  CancelMessageMoveTaskCommand,
  CreateQueueCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ListMessageMoveTasksCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  StartMessageMoveTaskCommand,
} from "@aws-sdk/client-sqs";
import { describe, expect, it } from "vitest";
import { failure, queueName, useSqsServer } from "./harness.js";

const { sqs } = useSqsServer();
const arnOf = (url: string) => `arn:aws:sqs:us-east-1:000000000000:${url.split("/").pop()}`;

async function fifoQueue(attributes: Record<string, string> = {}): Promise<string> {
  const name = queueName("f", true);
  return (
    await sqs().send(
      new CreateQueueCommand({ QueueName: name, Attributes: { FifoQueue: "true", ...attributes } }),
    )
  ).QueueUrl!;
}

describe("SQS server: FIFO queues", () => {
  it("delivers each group in order and holds a group while a message of it is in flight", async () => {
    const QueueUrl = await fifoQueue({ ContentBasedDeduplication: "true" });
    await sqs().send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: [
          { Id: "1", MessageBody: "a1", MessageGroupId: "a" },
          { Id: "2", MessageBody: "b1", MessageGroupId: "b" },
          { Id: "3", MessageBody: "a2", MessageGroupId: "a" },
        ],
      }),
    );
    const first = await sqs().send(
      new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 1, MessageSystemAttributeNames: ["All"] }),
    );
    const a1 = first.Messages![0]!;
    expect(a1.Body).toBe("a1");
    expect(a1.Attributes?.MessageGroupId).toBe("a");
    expect(a1.Attributes?.SequenceNumber).toMatch(/^\d{20}$/);
    const next = await sqs().send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    expect(next.Messages?.map((message) => message.Body)).toEqual(["b1"]);
    await sqs().send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: a1.ReceiptHandle }));
    const last = await sqs().send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    expect(last.Messages?.map((message) => message.Body)).toEqual(["a2"]);
  });

  it("drops a repeated deduplication id within five minutes and answers the original message", async () => {
    const QueueUrl = await fifoQueue();
    const first = await sqs().send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: "pay",
        MessageGroupId: "g",
        MessageDeduplicationId: "order-7",
      }),
    );
    const repeat = await sqs().send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: "pay",
        MessageGroupId: "g",
        MessageDeduplicationId: "order-7",
      }),
    );
    expect(repeat.MessageId).toBe(first.MessageId);
    expect(repeat.SequenceNumber).toBe(first.SequenceNumber);
    const { Messages } = await sqs().send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    expect(Messages).toHaveLength(1);
  });

  it("refuses what FIFO queues do not allow", async () => {
    const QueueUrl = await fifoQueue();
    expect(
      (
        await failure(
          sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: "x", MessageDeduplicationId: "d" })),
        )
      ).name,
    ).toBe("MissingParameter");
    expect(
      (await failure(sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: "x", MessageGroupId: "g" }))))
        .name,
    ).toBe("InvalidParameterValue");
    const delayed = await failure(
      sqs().send(
        new SendMessageCommand({
          QueueUrl,
          MessageBody: "x",
          MessageGroupId: "g",
          MessageDeduplicationId: "d",
          DelaySeconds: 2,
        }),
      ),
    );
    expect(delayed.name).toBe("InvalidParameterValue");
  });

  it("answers a retried ReceiveRequestAttemptId with the same messages and receipt handles", async () => {
    const QueueUrl = await fifoQueue({ ContentBasedDeduplication: "true" });
    await sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: "only", MessageGroupId: "g" }));
    const first = await sqs().send(
      new ReceiveMessageCommand({ QueueUrl, ReceiveRequestAttemptId: "attempt-1" }),
    );
    const retry = await sqs().send(
      new ReceiveMessageCommand({ QueueUrl, ReceiveRequestAttemptId: "attempt-1" }),
    );
    expect(retry.Messages?.[0]?.ReceiptHandle).toBe(first.Messages?.[0]?.ReceiptHandle);
    expect(
      (await sqs().send(new ReceiveMessageCommand({ QueueUrl, ReceiveRequestAttemptId: "attempt-2" })))
        .Messages,
    ).toBeUndefined();
  });
});

describe("SQS server: dead letters", () => {
  it("moves a message to the dead-letter queue after maxReceiveCount receives, then back with a move task", async () => {
    const dlq = (await sqs().send(new CreateQueueCommand({ QueueName: queueName("dlq") }))).QueueUrl!;
    const RedrivePolicy = JSON.stringify({ deadLetterTargetArn: arnOf(dlq), maxReceiveCount: "2" });
    const source = (
      await sqs().send(new CreateQueueCommand({ QueueName: queueName("src"), Attributes: { RedrivePolicy } }))
    ).QueueUrl!;
    await sqs().send(new SendMessageCommand({ QueueUrl: source, MessageBody: "poison" }));
    for (let i = 0; i < 2; i++)
      expect(
        (await sqs().send(new ReceiveMessageCommand({ QueueUrl: source, VisibilityTimeout: 0 }))).Messages,
      ).toHaveLength(1);
    expect((await sqs().send(new ReceiveMessageCommand({ QueueUrl: source }))).Messages).toBeUndefined();
    const dead = await sqs().send(
      new ReceiveMessageCommand({
        QueueUrl: dlq,
        MessageSystemAttributeNames: ["All"],
        VisibilityTimeout: 0,
      }),
    );
    expect(dead.Messages?.[0]?.Body).toBe("poison");
    expect(dead.Messages?.[0]?.Attributes?.DeadLetterQueueSourceArn).toBe(arnOf(source));

    const { TaskHandle } = await sqs().send(new StartMessageMoveTaskCommand({ SourceArn: arnOf(dlq) }));
    expect(TaskHandle).toBeTruthy();
    const moved = await sqs().send(new ReceiveMessageCommand({ QueueUrl: source, WaitTimeSeconds: 5 }));
    expect(moved.Messages?.[0]?.Body).toBe("poison");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const { Results } = await sqs().send(new ListMessageMoveTasksCommand({ SourceArn: arnOf(dlq) }));
    expect(Results?.[0]).toMatchObject({
      Status: "COMPLETED",
      ApproximateNumberOfMessagesMoved: 1,
      SourceArn: arnOf(dlq),
    });
    const cancelled = await failure(sqs().send(new CancelMessageMoveTaskCommand({ TaskHandle })));
    expect(cancelled.name).toBe("InvalidParameterValue");
  });

  it("refuses a move task from a queue that is nobody's dead-letter queue, and cancels a running one", async () => {
    const plain = (await sqs().send(new CreateQueueCommand({ QueueName: queueName() }))).QueueUrl!;
    expect(
      (await failure(sqs().send(new StartMessageMoveTaskCommand({ SourceArn: arnOf(plain) })))).name,
    ).toBe("InvalidParameterValue");
    expect(
      (await failure(sqs().send(new StartMessageMoveTaskCommand({ SourceArn: `${arnOf(plain)}-missing` }))))
        .name,
    ).toBe("ResourceNotFoundException");
    const dlq = (await sqs().send(new CreateQueueCommand({ QueueName: queueName("dlq") }))).QueueUrl!;
    const target = (await sqs().send(new CreateQueueCommand({ QueueName: queueName("target") }))).QueueUrl!;
    await sqs().send(
      new CreateQueueCommand({
        QueueName: queueName("src"),
        Attributes: {
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arnOf(dlq), maxReceiveCount: 1 }),
        },
      }),
    );
    for (let i = 0; i < 30; i++)
      await sqs().send(new SendMessageCommand({ QueueUrl: dlq, MessageBody: `m${i}` }));
    const { TaskHandle } = await sqs().send(
      new StartMessageMoveTaskCommand({
        SourceArn: arnOf(dlq),
        DestinationArn: arnOf(target),
        MaxNumberOfMessagesPerSecond: 10,
      }),
    );
    const { ApproximateNumberOfMessagesMoved } = await sqs().send(
      new CancelMessageMoveTaskCommand({ TaskHandle }),
    );
    expect(ApproximateNumberOfMessagesMoved).toBeLessThan(30);
    const { Results } = await sqs().send(new ListMessageMoveTasksCommand({ SourceArn: arnOf(dlq) }));
    expect(Results?.[0]?.Status).toBe("CANCELLED");
    const left = await sqs().send(
      new GetQueueAttributesCommand({ QueueUrl: dlq, AttributeNames: ["ApproximateNumberOfMessages"] }),
    );
    expect(Number(left.Attributes?.ApproximateNumberOfMessages)).toBe(30 - ApproximateNumberOfMessagesMoved!);
  });
});
