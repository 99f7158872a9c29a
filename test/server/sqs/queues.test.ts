import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListDeadLetterSourceQueuesCommand,
  ListQueuesCommand,
  ListQueueTagsCommand,
  PurgeQueueCommand,
  SendMessageCommand,
  SetQueueAttributesCommand,
  TagQueueCommand,
  UntagQueueCommand,
} from "@aws-sdk/client-sqs";
import { describe, expect, it } from "vitest";
import { failure, queueName, useSqsServer } from "./harness.js";

const { sqs, server } = useSqsServer();

describe("SQS server: queues", () => {
  it("CreateQueue answers a URL on its own origin and is idempotent for the same attributes", async () => {
    const name = queueName();
    const { QueueUrl } = await sqs().send(
      new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: "45" } }),
    );
    expect(QueueUrl).toBe(`${server().endpoint}/000000000000/${name}`);
    const again = await sqs().send(
      new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: "45" } }),
    );
    expect(again.QueueUrl).toBe(QueueUrl);
    const error = await failure(
      sqs().send(new CreateQueueCommand({ QueueName: name, Attributes: { VisibilityTimeout: "10" } })),
    );
    expect(error.name).toBe("QueueNameExists");
    expect(error.message).toContain("VisibilityTimeout");
  });

  it("CreateQueue refuses bad names, bad attributes and FIFO names without FifoQueue", async () => {
    expect((await failure(sqs().send(new CreateQueueCommand({ QueueName: "bad name!" })))).name).toBe(
      "InvalidParameterValue",
    );
    expect((await failure(sqs().send(new CreateQueueCommand({ QueueName: "x".repeat(81) })))).name).toBe(
      "InvalidParameterValue",
    );
    expect(
      (await failure(sqs().send(new CreateQueueCommand({ QueueName: queueName("f", true) })))).name,
    ).toBe("InvalidParameterValue");
    const bad = await failure(
      sqs().send(
        new CreateQueueCommand({ QueueName: queueName(), Attributes: { VisibilityTimeout: "50000" } }),
      ),
    );
    expect(bad.name).toBe("InvalidAttributeValue");
    const unknown = await failure(
      sqs().send(
        new CreateQueueCommand({
          QueueName: queueName(),
          Attributes: { FifoQueue: "false", ContentBasedDeduplication: "true" },
        }),
      ),
    );
    expect(unknown.name).toBe("InvalidAttributeName");
  });

  it("GetQueueUrl finds a queue or answers QueueDoesNotExist", async () => {
    const name = queueName();
    await sqs().send(new CreateQueueCommand({ QueueName: name }));
    expect((await sqs().send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl).toContain(`/${name}`);
    const missing = await failure(sqs().send(new GetQueueUrlCommand({ QueueName: `${name}-nope` })));
    expect(missing.name).toBe("QueueDoesNotExist");
    expect(missing.$metadata?.httpStatusCode).toBe(400);
  });

  it("ListQueues filters by prefix and pages with MaxResults and NextToken", async () => {
    const prefix = queueName("list");
    for (let i = 0; i < 5; i++) await sqs().send(new CreateQueueCommand({ QueueName: `${prefix}-${i}` }));
    const all = await sqs().send(new ListQueuesCommand({ QueueNamePrefix: prefix }));
    expect(all.QueueUrls).toHaveLength(5);
    expect(all.NextToken).toBeUndefined();
    const first = await sqs().send(new ListQueuesCommand({ QueueNamePrefix: prefix, MaxResults: 3 }));
    expect(first.QueueUrls).toHaveLength(3);
    const second = await sqs().send(
      new ListQueuesCommand({ QueueNamePrefix: prefix, MaxResults: 3, NextToken: first.NextToken }),
    );
    expect(second.QueueUrls).toHaveLength(2);
    expect(second.NextToken).toBeUndefined();
    expect(new Set([...first.QueueUrls!, ...second.QueueUrls!]).size).toBe(5);
    expect(
      (await sqs().send(new ListQueuesCommand({ QueueNamePrefix: "nothing-like-this" }))).QueueUrls,
    ).toBeUndefined();
  });

  it("GetQueueAttributes answers All, the names asked, counts, and refuses unknown names", async () => {
    const name = queueName();
    const { QueueUrl } = await sqs().send(
      new CreateQueueCommand({ QueueName: name, Attributes: { DelaySeconds: "5" } }),
    );
    await sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: "a" }));
    await sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: "b", DelaySeconds: 0 }));
    const { Attributes } = await sqs().send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["All"] }),
    );
    expect(Attributes).toMatchObject({
      DelaySeconds: "5",
      VisibilityTimeout: "30",
      MaximumMessageSize: "1048576",
      MessageRetentionPeriod: "345600",
      ApproximateNumberOfMessages: "1",
      ApproximateNumberOfMessagesDelayed: "1",
      ApproximateNumberOfMessagesNotVisible: "0",
      QueueArn: `arn:aws:sqs:us-east-1:000000000000:${name}`,
    });
    const some = await sqs().send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["DelaySeconds"] }),
    );
    expect(some.Attributes).toEqual({ DelaySeconds: "5" });
    expect((await sqs().send(new GetQueueAttributesCommand({ QueueUrl }))).Attributes).toBeUndefined();
    const error = await failure(
      sqs().send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["Colour" as "All"] })),
    );
    expect(error.name).toBe("InvalidAttributeName");
  });

  it("SetQueueAttributes changes settings but never the queue type", async () => {
    const { QueueUrl } = await sqs().send(new CreateQueueCommand({ QueueName: queueName() }));
    await sqs().send(
      new SetQueueAttributesCommand({
        QueueUrl,
        Attributes: { VisibilityTimeout: "12", MaximumMessageSize: "2048" },
      }),
    );
    const { Attributes } = await sqs().send(
      new GetQueueAttributesCommand({
        QueueUrl,
        AttributeNames: ["VisibilityTimeout", "MaximumMessageSize"],
      }),
    );
    expect(Attributes).toEqual({ VisibilityTimeout: "12", MaximumMessageSize: "2048" });
    const fifo = await sqs().send(
      new CreateQueueCommand({ QueueName: queueName("f", true), Attributes: { FifoQueue: "true" } }),
    );
    const error = await failure(
      sqs().send(
        new SetQueueAttributesCommand({ QueueUrl: fifo.QueueUrl, Attributes: { FifoQueue: "false" } }),
      ),
    );
    expect(error.name).toBe("InvalidAttributeValue");
  });

  it("TagQueue, UntagQueue and ListQueueTags keep a queue's tags", async () => {
    const { QueueUrl } = await sqs().send(
      new CreateQueueCommand({ QueueName: queueName(), tags: { team: "billing" } }),
    );
    await sqs().send(new TagQueueCommand({ QueueUrl, Tags: { env: "dev", cost: "42" } }));
    await sqs().send(new UntagQueueCommand({ QueueUrl, TagKeys: ["cost"] }));
    expect((await sqs().send(new ListQueueTagsCommand({ QueueUrl }))).Tags).toEqual({
      team: "billing",
      env: "dev",
    });
  });

  it("PurgeQueue empties a queue and DeleteQueue removes it", async () => {
    const { QueueUrl } = await sqs().send(new CreateQueueCommand({ QueueName: queueName() }));
    await sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: "gone" }));
    await sqs().send(new PurgeQueueCommand({ QueueUrl }));
    const { Attributes } = await sqs().send(
      new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["ApproximateNumberOfMessages"] }),
    );
    expect(Attributes?.ApproximateNumberOfMessages).toBe("0");
    await sqs().send(new DeleteQueueCommand({ QueueUrl }));
    expect((await failure(sqs().send(new PurgeQueueCommand({ QueueUrl })))).name).toBe("QueueDoesNotExist");
  });

  it("ListDeadLetterSourceQueues lists the queues whose redrive policy targets a queue", async () => {
    const dlq = await sqs().send(new CreateQueueCommand({ QueueName: queueName("dlq") }));
    const arn = `arn:aws:sqs:us-east-1:000000000000:${dlq.QueueUrl!.split("/").pop()}`;
    const policy = JSON.stringify({ deadLetterTargetArn: arn, maxReceiveCount: 3 });
    const source = await sqs().send(
      new CreateQueueCommand({ QueueName: queueName("src"), Attributes: { RedrivePolicy: policy } }),
    );
    const { queueUrls } = await sqs().send(new ListDeadLetterSourceQueuesCommand({ QueueUrl: dlq.QueueUrl }));
    expect(queueUrls).toEqual([source.QueueUrl]);
    const missingTarget = await failure(
      sqs().send(
        new CreateQueueCommand({
          QueueName: queueName(),
          Attributes: {
            RedrivePolicy: JSON.stringify({ deadLetterTargetArn: `${arn}-nope`, maxReceiveCount: 3 }),
          },
        }),
      ),
    );
    expect(missingTarget.name).toBe("InvalidParameterValue");
  });
});
