// Behaviours of AWS SQS that real clients (sqs-consumer, boto3, the AWS CLI) met and the server
// once got wrong: each test fails without its fix.
import {
  AddPermissionCommand,
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListQueuesCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  RemovePermissionCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
  TagQueueCommand,
  UntagQueueCommand,
} from "@aws-sdk/client-sqs";
import { describe, expect, it } from "vitest";
import { CREDENTIALS, failure, queueName, useSqsServer } from "./harness.js";

const { sqs, client, engine, server } = useSqsServer();

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

  it("receipts as SQS takes them: a used one deletes nothing and succeeds, an older one of a message received again deletes it", async () => {
    const QueueUrl = await queue();
    await sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: "twice received" }));
    const receive = async () =>
      (await sqs().send(new ReceiveMessageCommand({ QueueUrl, VisibilityTimeout: 0 }))).Messages![0]!;
    const older = await receive();
    const newer = await receive();
    expect(newer.ReceiptHandle).not.toBe(older.ReceiptHandle);
    await sqs().send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: older.ReceiptHandle }));
    expect((await sqs().send(new ReceiveMessageCommand({ QueueUrl }))).Messages).toBeUndefined();
    await sqs().send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: newer.ReceiptHandle }));
    await sqs().send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: older.ReceiptHandle }));
    const batch = await sqs().send(
      new DeleteMessageBatchCommand({
        QueueUrl,
        Entries: [{ Id: "again", ReceiptHandle: newer.ReceiptHandle }],
      }),
    );
    expect(batch.Successful?.map((entry) => entry.Id)).toEqual(["again"]);
    expect(batch.Failed ?? []).toEqual([]);
  });

  it("a visibility change with a receipt whose lock ended or was superseded succeeds and changes nothing, single and batch", async () => {
    const QueueUrl = await queue();
    await sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: "moving on" }));
    const expiredReceipt = (await sqs().send(new ReceiveMessageCommand({ QueueUrl, VisibilityTimeout: 0 })))
      .Messages![0]!.ReceiptHandle!;
    await sqs().send(
      new ChangeMessageVisibilityCommand({ QueueUrl, ReceiptHandle: expiredReceipt, VisibilityTimeout: 60 }),
    );
    const held = (await sqs().send(new ReceiveMessageCommand({ QueueUrl, VisibilityTimeout: 60 })))
      .Messages![0]!;
    const batch = await sqs().send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl,
        Entries: [
          { Id: "superseded", ReceiptHandle: expiredReceipt, VisibilityTimeout: 0 },
          { Id: "latest", ReceiptHandle: held.ReceiptHandle!, VisibilityTimeout: 60 },
        ],
      }),
    );
    expect(batch.Successful?.map((entry) => entry.Id).sort()).toEqual(["latest", "superseded"]);
    // The superseded receipt did not make the message visible under its new holder.
    expect((await sqs().send(new ReceiveMessageCommand({ QueueUrl }))).Messages).toBeUndefined();
    await sqs().send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: held.ReceiptHandle }));
    const gone = await failure(
      sqs().send(
        new ChangeMessageVisibilityCommand({
          QueueUrl,
          ReceiptHandle: held.ReceiptHandle,
          VisibilityTimeout: 5,
        }),
      ),
    );
    expect(gone.name).toBe("ReceiptHandleIsInvalid");
  });

  it("on a FIFO queue only the latest receipt deletes, within its visibility timeout; one whose message is gone succeeds", async () => {
    const QueueUrl = await queue({ FifoQueue: "true", ContentBasedDeduplication: "true" }, true);
    await sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: "ordered", MessageGroupId: "g" }));
    const receive = async () =>
      (await sqs().send(new ReceiveMessageCommand({ QueueUrl, VisibilityTimeout: 0 }))).Messages![0]!;
    const older = await receive();
    const newer = await receive();
    const refused = await failure(
      sqs().send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: older.ReceiptHandle })),
    );
    expect(refused.name).toBe("InvalidParameterValue");
    expect(refused.message).toContain("The receipt handle has expired");
    const latest = (await sqs().send(new ReceiveMessageCommand({ QueueUrl, VisibilityTimeout: 30 })))
      .Messages![0]!;
    expect(latest.MessageId).toBe(newer.MessageId);
    await sqs().send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: latest.ReceiptHandle }));
    await sqs().send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: latest.ReceiptHandle }));
  });

  it("a request signed for another region than the server's is refused with AWS's SignatureDoesNotMatch", async () => {
    const elsewhere = new SQSClient({
      endpoint: server().endpoint,
      region: "eu-west-1",
      credentials: CREDENTIALS,
      maxAttempts: 1,
    });
    try {
      const refused = await failure(elsewhere.send(new ListQueuesCommand({})));
      expect(refused.name).toBe("SignatureDoesNotMatch");
      expect(refused.message).toBe("Credential should be scoped to a valid region, not 'eu-west-1'.");
      expect(refused.$metadata?.httpStatusCode).toBe(403);
    } finally {
      elsewhere.destroy();
    }
  });

  it("a queue URL of another account names no queue here: QueueDoesNotExist", async () => {
    const QueueUrl = await queue();
    const otherAccount = QueueUrl.replace("/000000000000/", "/123456789012/");
    expect(otherAccount).not.toBe(QueueUrl);
    const send = await failure(
      sqs().send(new SendMessageCommand({ QueueUrl: otherAccount, MessageBody: "x" })),
    );
    expect(send.name).toBe("QueueDoesNotExist");
    const read = await failure(
      sqs().send(new GetQueueAttributesCommand({ QueueUrl: otherAccount, AttributeNames: ["All"] })),
    );
    expect(read.name).toBe("QueueDoesNotExist");
    await sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: "own account" }));
  });

  it("a FIFO batch with an entry lacking its group or deduplication id fails as a whole, with InvalidParameterValue", async () => {
    const QueueUrl = await queue({ FifoQueue: "true" }, true);
    const fine = { Id: "fine", MessageBody: "a", MessageGroupId: "g", MessageDeduplicationId: "d1" };
    const batchWith = (entry: {
      Id: string;
      MessageBody: string;
      MessageGroupId?: string;
      MessageDeduplicationId?: string;
    }) => failure(sqs().send(new SendMessageBatchCommand({ QueueUrl, Entries: [fine, entry] })));
    const noGroup = await batchWith({ Id: "no-group", MessageBody: "b", MessageDeduplicationId: "d2" });
    expect(noGroup.name).toBe("InvalidParameterValue");
    expect(noGroup.$metadata?.httpStatusCode).toBe(400);
    const noDeduplication = await batchWith({ Id: "no-dedup", MessageBody: "b", MessageGroupId: "g" });
    expect(noDeduplication.name).toBe("InvalidParameterValue");
    expect(noDeduplication.message).toContain("ContentBasedDeduplication");
    // Neither request stored anything.
    expect(
      (await sqs().send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }))).Messages,
    ).toBeUndefined();
  });

  it("TagQueue with no tags and UntagQueue with no keys are refused", async () => {
    const QueueUrl = await queue();
    const tag = await failure(sqs().send(new TagQueueCommand({ QueueUrl, Tags: {} })));
    expect(tag.name).toBe("MissingParameter");
    expect(tag.$metadata?.httpStatusCode).toBe(400);
    const untag = await failure(sqs().send(new UntagQueueCommand({ QueueUrl, TagKeys: [] })));
    expect(untag.name).toBe("MissingParameter");
    expect(untag.$metadata?.httpStatusCode).toBe(400);
  });

  it("SetQueueAttributes with an empty Policy removes it", async () => {
    const policy = JSON.stringify({ Version: "2012-10-17", Statement: [] });
    const QueueUrl = await queue({ Policy: policy });
    const read = async () =>
      (await sqs().send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["All"] }))).Attributes!;
    expect((await read()).Policy).toBe(policy);
    await sqs().send(new SetQueueAttributesCommand({ QueueUrl, Attributes: { Policy: "" } }));
    expect(await read()).not.toHaveProperty("Policy");
  });

  it("CreateQueue again with the same attributes returns the queue, a RedrivePolicy written differently included", async () => {
    const deadLetters = await queue();
    const arn = (
      await sqs().send(new GetQueueAttributesCommand({ QueueUrl: deadLetters, AttributeNames: ["QueueArn"] }))
    ).Attributes!.QueueArn!;
    const QueueName = queueName("again");
    const first = await sqs().send(
      new CreateQueueCommand({
        QueueName,
        Attributes: {
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arn, maxReceiveCount: 5 }),
          VisibilityTimeout: "45",
        },
      }),
    );
    const again = await sqs().send(
      new CreateQueueCommand({
        QueueName,
        Attributes: {
          VisibilityTimeout: "45",
          RedrivePolicy: `{ "maxReceiveCount": "5",  "deadLetterTargetArn": "${arn}" }`,
        },
      }),
    );
    expect(again.QueueUrl).toBe(first.QueueUrl);
    const different = await failure(
      sqs().send(
        new CreateQueueCommand({
          QueueName,
          Attributes: { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arn, maxReceiveCount: 6 }) },
        }),
      ),
    );
    expect(different.name).toBe("QueueNameExists");
  });

  it("AddPermission keeps a statement per label in the queue's Policy; RemovePermission takes it out; conflicts answer AWS's errors", async () => {
    const QueueUrl = await queue();
    const arn = (await sqs().send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["QueueArn"] })))
      .Attributes!.QueueArn!;
    await sqs().send(
      new AddPermissionCommand({
        QueueUrl,
        Label: "senders",
        AWSAccountIds: ["111122223333"],
        Actions: ["SendMessage"],
      }),
    );
    const policyOf = async () =>
      (await sqs().send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["Policy"] }))).Attributes
        ?.Policy;
    expect(JSON.parse((await policyOf())!)).toEqual({
      Version: "2012-10-17",
      Id: `${arn}/SQSDefaultPolicy`,
      Statement: [
        {
          Sid: "senders",
          Effect: "Allow",
          Principal: { AWS: "arn:aws:iam::111122223333:root" },
          Action: "SQS:SendMessage",
          Resource: arn,
        },
      ],
    });
    const again = await failure(
      sqs().send(
        new AddPermissionCommand({ QueueUrl, Label: "senders", AWSAccountIds: ["1"], Actions: ["*"] }),
      ),
    );
    expect(again.name).toBe("InvalidParameterValue");
    expect(again.message).toBe("Value senders for parameter Label is invalid. Reason: Already exists.");
    const ownerOnly = await failure(
      sqs().send(
        new AddPermissionCommand({ QueueUrl, Label: "x", AWSAccountIds: ["1"], Actions: ["DeleteQueue"] }),
      ),
    );
    expect(ownerOnly.name).toBe("InvalidParameterValue");
    const tooMany = await failure(
      sqs().send(
        new AddPermissionCommand({
          QueueUrl,
          Label: "y",
          AWSAccountIds: ["1"],
          Actions: Array(8).fill("SendMessage"),
        }),
      ),
    );
    expect(tooMany.name).toBe("OverLimit");
    await sqs().send(new RemovePermissionCommand({ QueueUrl, Label: "senders" }));
    expect(await policyOf()).toBeUndefined();
    const unknown = await failure(sqs().send(new RemovePermissionCommand({ QueueUrl, Label: "senders" })));
    expect(unknown.name).toBe("InvalidParameterValue");
    expect(unknown.message).toBe(
      "Value senders for parameter Label is invalid. Reason: can't find label on existing policy.",
    );
  });

  it("PurgeQueue on a FIFO queue removes the messages in flight and frees their groups at once", async () => {
    const QueueUrl = await queue(
      { FifoQueue: "true", ContentBasedDeduplication: "true", VisibilityTimeout: "60" },
      true,
    );
    for (const body of ["first", "second"])
      await sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: body, MessageGroupId: "held" }));
    const inFlight = await sqs().send(new ReceiveMessageCommand({ QueueUrl }));
    expect(inFlight.Messages?.map((message) => message.Body)).toEqual(["first"]);
    await sqs().send(new PurgeQueueCommand({ QueueUrl }));
    await sqs().send(
      new SendMessageCommand({ QueueUrl, MessageBody: "after the purge", MessageGroupId: "held" }),
    );
    const next = await sqs().send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    expect(next.Messages?.map((message) => message.Body)).toEqual(["after the purge"]);
    const stats = await sqs().send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["ApproximateNumberOfMessagesNotVisible"] }),
    );
    expect(stats.Attributes?.ApproximateNumberOfMessagesNotVisible).toBe("1");
  });

  it("a queue made with the engine's default dead-letter queue has that queue: its RedrivePolicy names a queue that exists", async () => {
    const name = queueName("engine-made");
    engine().createQueue(name, { maxDeliveryCount: 3 });
    const { QueueUrl } = await sqs().send(new GetQueueUrlCommand({ QueueName: name }));
    const { Attributes } = await sqs().send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["RedrivePolicy"] }),
    );
    const policy = JSON.parse(Attributes!.RedrivePolicy!) as {
      deadLetterTargetArn: string;
      maxReceiveCount: number;
    };
    expect(policy.maxReceiveCount).toBe(3);
    const target = policy.deadLetterTargetArn.slice(policy.deadLetterTargetArn.lastIndexOf(":") + 1);
    expect(target).toBe(`${name}-dlq`);
    expect((await sqs().send(new GetQueueUrlCommand({ QueueName: target }))).QueueUrl).toContain(target);
  });
});
