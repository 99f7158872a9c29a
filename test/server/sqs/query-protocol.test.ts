import {
  AddPermissionCommand,
  CancelMessageMoveTaskCommand,
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListDeadLetterSourceQueuesCommand,
  ListMessageMoveTasksCommand,
  ListQueuesCommand,
  ListQueueTagsCommand,
  PurgeQueueCommand,
  ReceiveMessageCommand,
  RemovePermissionCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  SQSClient,
  StartMessageMoveTaskCommand,
  TagQueueCommand,
  UntagQueueCommand,
} from "sqs-client-query-protocol";
import { describe, expect, it } from "vitest";
import { CREDENTIALS, failure, queueName, sendRequest, type TextAnswer, useSqsServer } from "./harness.js";

// @aws-sdk/client-sqs 3.445, the last release before the JavaScript SDK moved SQS to the JSON
// protocol: form-encoded requests, XML answers, and its own MD5 checks of what it sends and gets.
const { server } = useSqsServer();

function oldClient(credentials = CREDENTIALS): SQSClient {
  return new SQSClient({ endpoint: server().endpoint, region: "us-east-1", credentials, maxAttempts: 1 });
}

describe("SQS server: the query protocol of SDKs from before the JSON protocol", () => {
  it("speaks it: queues, attributes and tags", async () => {
    const sqs = oldClient();
    const name = queueName("query");
    const { QueueUrl } = await sqs.send(
      new CreateQueueCommand({
        QueueName: name,
        Attributes: { VisibilityTimeout: "45", DelaySeconds: "0" },
        tags: { team: "core", "cost-centre": "7" },
      }),
    );
    expect(QueueUrl).toBe(`${server().endpoint}/000000000000/${name}`);
    expect((await sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl).toBe(QueueUrl);
    expect((await sqs.send(new ListQueuesCommand({ QueueNamePrefix: name }))).QueueUrls).toEqual([QueueUrl]);
    await sqs.send(new SetQueueAttributesCommand({ QueueUrl, Attributes: { MaximumMessageSize: "2048" } }));
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl,
        AttributeNames: ["VisibilityTimeout", "MaximumMessageSize"],
      }),
    );
    expect(Attributes).toEqual({ VisibilityTimeout: "45", MaximumMessageSize: "2048" });
    expect((await sqs.send(new ListQueueTagsCommand({ QueueUrl }))).Tags).toEqual({
      team: "core",
      "cost-centre": "7",
    });
    sqs.destroy();
  });

  it("sends and receives bodies and attributes that need escaping in XML, MD5s checked by the client", async () => {
    const sqs = oldClient();
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: queueName("query-messages") }));
    const body = `<order id="1" note='a & b'>\r\nline two\r\n</order> 😀`;
    const sent = await sqs.send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: body,
        MessageAttributes: {
          team: { DataType: "String", StringValue: "<core & co>" },
          count: { DataType: "Number", StringValue: "42" },
          blob: { DataType: "Binary", BinaryValue: Uint8Array.from([0, 1, 2, 255]) },
        },
      }),
    );
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl,
        AttributeNames: ["All"],
        MessageAttributeNames: ["All"],
        WaitTimeSeconds: 1,
      }),
    );
    expect(Messages).toHaveLength(1);
    const [message] = Messages;
    expect(message!.MessageId).toBe(sent.MessageId);
    expect(message!.Body).toBe(body);
    expect(message!.Attributes?.ApproximateReceiveCount).toBe("1");
    expect(message!.MessageAttributes?.team?.StringValue).toBe("<core & co>");
    expect(message!.MessageAttributes?.count?.StringValue).toBe("42");
    expect([...(message!.MessageAttributes?.blob?.BinaryValue ?? [])]).toEqual([0, 1, 2, 255]);
    sqs.destroy();
  });

  it("handles batches with their failed entries, and FIFO queues with sequence numbers", async () => {
    const sqs = oldClient();
    const { QueueUrl } = await sqs.send(
      new CreateQueueCommand({
        QueueName: queueName("query-batch", true),
        Attributes: { FifoQueue: "true" },
      }),
    );
    const sent = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: ["one", "two", "three"].map((body, i) => ({
          Id: `m${i}`,
          MessageBody: body,
          MessageGroupId: "g",
          MessageDeduplicationId: `d${i}`,
        })),
      }),
    );
    expect(sent.Successful?.map((entry) => entry.Id)).toEqual(["m0", "m1", "m2"]);
    expect(sent.Successful?.every((entry) => /^\d{20}$/.test(entry.SequenceNumber ?? ""))).toBe(true);
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10, AttributeNames: ["All"] }),
    );
    expect(Messages.map((message) => message.Body)).toEqual(["one", "two", "three"]);

    const changed = await sqs.send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl,
        Entries: [
          { Id: "c0", ReceiptHandle: Messages[0]!.ReceiptHandle!, VisibilityTimeout: 60 },
          { Id: "c1", ReceiptHandle: "not-a-receipt", VisibilityTimeout: 60 },
        ],
      }),
    );
    expect(changed.Successful?.map((entry) => entry.Id)).toEqual(["c0"]);
    expect(changed.Failed).toEqual([
      expect.objectContaining({ Id: "c1", SenderFault: true, Code: "ReceiptHandleIsInvalid" }),
    ]);
    const deleted = await sqs.send(
      new DeleteMessageBatchCommand({
        QueueUrl,
        Entries: Messages.map((message, i) => ({ Id: `d${i}`, ReceiptHandle: message.ReceiptHandle! })),
      }),
    );
    expect(deleted.Successful).toHaveLength(3);
    sqs.destroy();
  });

  it("runs the rest: dead letters and a move task back, visibility, single deletes, tags, purge, delete", async () => {
    const sqs = oldClient();
    const arn = (name: string) => `arn:aws:sqs:us-east-1:000000000000:${name}`;
    const deadName = queueName("query-dead");
    const { QueueUrl: dead } = await sqs.send(new CreateQueueCommand({ QueueName: deadName }));
    const sourceName = queueName("query-source");
    const { QueueUrl: source } = await sqs.send(
      new CreateQueueCommand({
        QueueName: sourceName,
        Attributes: {
          RedrivePolicy: JSON.stringify({ deadLetterTargetArn: arn(deadName), maxReceiveCount: 1 }),
          VisibilityTimeout: "0",
        },
      }),
    );
    expect((await sqs.send(new ListDeadLetterSourceQueuesCommand({ QueueUrl: dead }))).queueUrls).toEqual([
      source,
    ]);
    await sqs.send(new SendMessageCommand({ QueueUrl: source, MessageBody: "poison" }));
    await sqs.send(new ReceiveMessageCommand({ QueueUrl: source }));
    expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl: source }))).Messages).toBeUndefined();

    const { TaskHandle } = await sqs.send(new StartMessageMoveTaskCommand({ SourceArn: arn(deadName) }));
    expect(TaskHandle).toEqual(expect.any(String));
    await expect
      .poll(
        async () =>
          (await sqs.send(new ListMessageMoveTasksCommand({ SourceArn: arn(deadName) }))).Results?.[0],
      )
      .toMatchObject({ Status: "COMPLETED", ApproximateNumberOfMessagesMoved: 1 });
    const cancel = await failure(sqs.send(new CancelMessageMoveTaskCommand({ TaskHandle })));
    expect([cancel.name, cancel.message]).toEqual([
      "InvalidParameterValue",
      "Only active tasks can be cancelled.",
    ]);

    await sqs.send(
      new SetQueueAttributesCommand({ QueueUrl: source, Attributes: { VisibilityTimeout: "30" } }),
    );
    const [moved] = (await sqs.send(new ReceiveMessageCommand({ QueueUrl: source }))).Messages ?? [];
    expect(moved?.Body).toBe("poison");
    await sqs.send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: source,
        ReceiptHandle: moved!.ReceiptHandle,
        VisibilityTimeout: 60,
      }),
    );
    await sqs.send(new DeleteMessageCommand({ QueueUrl: source, ReceiptHandle: moved!.ReceiptHandle }));

    await sqs.send(new TagQueueCommand({ QueueUrl: source, Tags: { team: "core", stage: "test" } }));
    await sqs.send(new UntagQueueCommand({ QueueUrl: source, TagKeys: ["stage"] }));
    expect((await sqs.send(new ListQueueTagsCommand({ QueueUrl: source }))).Tags).toEqual({ team: "core" });
    await sqs.send(new SendMessageCommand({ QueueUrl: source, MessageBody: "purged" }));
    await sqs.send(new PurgeQueueCommand({ QueueUrl: source }));
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: source, AttributeNames: ["ApproximateNumberOfMessages"] }),
    );
    expect(Attributes).toEqual({ ApproximateNumberOfMessages: "0" });
    await sqs.send(
      new AddPermissionCommand({
        QueueUrl: source,
        Label: "l",
        AWSAccountIds: ["111122223333", "444455556666"],
        Actions: ["SendMessage", "ReceiveMessage"],
      }),
    );
    const policy = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: source, AttributeNames: ["Policy"] }),
    );
    expect(JSON.parse(policy.Attributes!.Policy!).Statement[0]).toMatchObject({
      Sid: "l",
      Principal: { AWS: ["arn:aws:iam::111122223333:root", "arn:aws:iam::444455556666:root"] },
      Action: ["SQS:SendMessage", "SQS:ReceiveMessage"],
    });
    await sqs.send(new RemovePermissionCommand({ QueueUrl: source, Label: "l" }));
    const unknownLabel = await failure(
      sqs.send(new RemovePermissionCommand({ QueueUrl: source, Label: "l" })),
    );
    expect(unknownLabel.name).toBe("InvalidParameterValue");
    await sqs.send(new DeleteQueueCommand({ QueueUrl: source }));
    await sqs.send(new DeleteQueueCommand({ QueueUrl: dead }));
    expect(
      (await sqs.send(new ListQueuesCommand({ QueueNamePrefix: sourceName }))).QueueUrls,
    ).toBeUndefined();
    sqs.destroy();
  });

  it("answers errors in its XML shape, with the codes the client knows", async () => {
    const sqs = oldClient();
    const missing = await failure(sqs.send(new GetQueueUrlCommand({ QueueName: queueName("absent") })));
    expect(missing.name).toBe("QueueDoesNotExist");
    expect(missing.$metadata?.httpStatusCode).toBe(400);
    const wrongSecret = await failure(
      oldClient({ ...CREDENTIALS, secretAccessKey: "not-the-secret" }).send(new ListQueuesCommand({})),
    );
    expect(wrongSecret.name).toBe("SignatureDoesNotMatch");
    const unknown = await formRequest("/", "Action=FlyToTheMoon&Version=2012-11-05");
    expect(unknown.status).toBe(400);
    expect(unknown.text).toMatch(
      /^<\?xml version="1.0"\?><ErrorResponse xmlns="http:\/\/queue.amazonaws.com\/doc\/2012-11-05\/"><Error><Type>Sender<\/Type><Code>InvalidAction<\/Code><Message>The action FlyToTheMoon is not valid for this endpoint.<\/Message>/,
    );
    const noAction = await formRequest("/", "Version=2012-11-05");
    expect(noAction.text).toContain("<Code>MissingAction</Code>");
    const badNumber = await formRequest("/", "Action=ListQueues&MaxResults=ten");
    expect(badNumber.text).toContain("<Code>InvalidParameterValue</Code>");
    sqs.destroy();
  });

  it("takes the queue from the path when a client posts to the queue's URL without QueueUrl", async () => {
    const sqs = oldClient();
    const name = queueName("query-path");
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
    const sent = await formRequest(
      `/000000000000/${name}`,
      "Action=SendMessage&MessageBody=via%20the%20path",
    );
    expect(sent.status).toBe(200);
    expect(sent.text).toMatch(
      /<SendMessageResult>.*<MessageId>[0-9a-f-]{36}<\/MessageId>.*<\/SendMessageResult>/,
    );
    const { Messages = [] } = await sqs.send(new ReceiveMessageCommand({ QueueUrl }));
    expect(Messages.map((message) => message.Body)).toEqual(["via the path"]);
    sqs.destroy();
  });

  it("takes a signed GET with its parameters in the query string", async () => {
    const sqs = oldClient();
    const name = queueName("query-get");
    const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name }));
    const response = await sendRequest(server().endpoint, {
      path: `/?Action=GetQueueUrl&QueueName=${name}&Version=2012-11-05`,
    });
    expect(response.status).toBe(200);
    expect(response.text).toContain(
      `<GetQueueUrlResult><QueueUrl>${QueueUrl}</QueueUrl></GetQueueUrlResult>`,
    );
    sqs.destroy();
  });
});

/** Posts a signed form-encoded request to `path` and reads the answer as text. */
function formRequest(path: string, body: string): Promise<TextAnswer> {
  return sendRequest(server().endpoint, {
    path,
    body,
    headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
  });
}
