import {
  ChangeMessageVisibilityBatchCommand,
  ChangeMessageVisibilityCommand,
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteMessageCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SendMessageCommand,
} from "@aws-sdk/client-sqs";
import { describe, expect, it } from "vitest";
import { md5OfMessageAttributes } from "../../../src/aws/index.js";
import { failure, queueName, useSqsServer } from "./harness.js";

const { sqs } = useSqsServer();

async function queue(attributes: Record<string, string> = {}): Promise<string> {
  return (await sqs().send(new CreateQueueCommand({ QueueName: queueName(), Attributes: attributes })))
    .QueueUrl!;
}

describe("SQS server: messages (the SDK checks every body MD5)", () => {
  it("sends and receives typed attributes, with their MD5 over what is returned", async () => {
    const QueueUrl = await queue();
    const MessageAttributes = {
      "Help.Me": { DataType: "String", StringValue: "Me" },
      Hello: { DataType: "String", StringValue: "There" },
      Count: { DataType: "Number.int", StringValue: "42" },
      Blob: { DataType: "Binary", BinaryValue: Uint8Array.from([0, 1, 2, 255]) },
    };
    const sent = await sqs().send(
      new SendMessageCommand({ QueueUrl, MessageBody: "héllo wörld", MessageAttributes }),
    );
    expect(sent.MD5OfMessageAttributes).toBe(md5OfMessageAttributes(MessageAttributes));
    const all = await sqs().send(
      new ReceiveMessageCommand({ QueueUrl, MessageAttributeNames: ["All"], VisibilityTimeout: 0 }),
    );
    const message = all.Messages![0]!;
    expect(message.Body).toBe("héllo wörld");
    expect(message.MessageAttributes?.Count).toEqual({ DataType: "Number.int", StringValue: "42" });
    expect([...(message.MessageAttributes?.Blob?.BinaryValue ?? [])]).toEqual([0, 1, 2, 255]);
    expect(message.MD5OfMessageAttributes).toBe(sent.MD5OfMessageAttributes);
    const some = await sqs().send(
      new ReceiveMessageCommand({ QueueUrl, MessageAttributeNames: ["Hel.*"], VisibilityTimeout: 0 }),
    );
    const selected = some.Messages![0]!;
    expect(Object.keys(selected.MessageAttributes ?? {}).sort()).toEqual(["Hello", "Help.Me"]);
    expect(selected.MD5OfMessageAttributes).toBe(
      md5OfMessageAttributes({ "Help.Me": MessageAttributes["Help.Me"], Hello: MessageAttributes.Hello }),
    );
    const none = await sqs().send(new ReceiveMessageCommand({ QueueUrl }));
    expect(none.Messages![0]!.MessageAttributes).toBeUndefined();
    expect(none.Messages![0]!.MD5OfMessageAttributes).toBeUndefined();
  });

  it("answers system attributes when asked", async () => {
    const QueueUrl = await queue();
    await sqs().send(
      new SendMessageCommand({
        QueueUrl,
        MessageBody: "traced",
        MessageSystemAttributes: { AWSTraceHeader: { DataType: "String", StringValue: "Root=1-abc" } },
      }),
    );
    const { Messages } = await sqs().send(
      new ReceiveMessageCommand({ QueueUrl, MessageSystemAttributeNames: ["All"] }),
    );
    expect(Messages![0]!.Attributes).toMatchObject({
      SenderId: "AKIDTEST",
      ApproximateReceiveCount: "1",
      AWSTraceHeader: "Root=1-abc",
    });
    expect(Number(Messages![0]!.Attributes!.SentTimestamp)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("hides a received message for its visibility timeout; ChangeMessageVisibility moves it", async () => {
    const QueueUrl = await queue({ VisibilityTimeout: "30" });
    await sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: "once" }));
    const first = (await sqs().send(new ReceiveMessageCommand({ QueueUrl }))).Messages![0]!;
    expect((await sqs().send(new ReceiveMessageCommand({ QueueUrl }))).Messages).toBeUndefined();
    await sqs().send(
      new ChangeMessageVisibilityCommand({
        QueueUrl,
        ReceiptHandle: first.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    const second = (
      await sqs().send(
        new ReceiveMessageCommand({ QueueUrl, MessageSystemAttributeNames: ["ApproximateReceiveCount"] }),
      )
    ).Messages![0]!;
    expect(second.MessageId).toBe(first.MessageId);
    expect(second.Attributes?.ApproximateReceiveCount).toBe("2");
    // A superseded receipt changes nothing, and SQS answers it without an error.
    await sqs().send(
      new ChangeMessageVisibilityCommand({
        QueueUrl,
        ReceiptHandle: first.ReceiptHandle,
        VisibilityTimeout: 0,
      }),
    );
    expect((await sqs().send(new ReceiveMessageCommand({ QueueUrl }))).Messages).toBeUndefined();
    await sqs().send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: second.ReceiptHandle }));
    const gone = await failure(
      sqs().send(
        new ChangeMessageVisibilityCommand({
          QueueUrl,
          ReceiptHandle: second.ReceiptHandle,
          VisibilityTimeout: 5,
        }),
      ),
    );
    expect(gone.name).toBe("ReceiptHandleIsInvalid");
    expect(
      (await failure(sqs().send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: "garbage" })))).name,
    ).toBe("ReceiptHandleIsInvalid");
  });

  it("lets the latest receipt of a standard queue delete its message after the timeout (as SQS does)", async () => {
    const QueueUrl = await queue();
    await sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: "late" }));
    const message = (await sqs().send(new ReceiveMessageCommand({ QueueUrl, VisibilityTimeout: 0 })))
      .Messages![0]!;
    // Its lock ended: SQS answers a visibility change without an error, and nothing changes.
    await sqs().send(
      new ChangeMessageVisibilityCommand({
        QueueUrl,
        ReceiptHandle: message.ReceiptHandle,
        VisibilityTimeout: 5,
      }),
    );
    await sqs().send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: message.ReceiptHandle }));
    expect((await sqs().send(new ReceiveMessageCommand({ QueueUrl }))).Messages).toBeUndefined();
  });

  it("holds delayed messages back, per queue and per message", async () => {
    const QueueUrl = await queue({ DelaySeconds: "1" });
    await sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: "queue delay" }));
    await sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: "no delay", DelaySeconds: 0 }));
    const now = await sqs().send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    expect(now.Messages?.map((message) => message.Body)).toEqual(["no delay"]);
    const later = await sqs().send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 3 }));
    expect(later.Messages?.map((message) => message.Body)).toEqual(["queue delay"]);
  });

  it("a long poll returns as soon as a message is sent, and an empty one after WaitTimeSeconds", async () => {
    const QueueUrl = await queue();
    const started = Date.now();
    const polling = sqs().send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 10 }));
    await new Promise((resolve) => setTimeout(resolve, 200));
    await sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: "wake" }));
    expect((await polling).Messages?.[0]?.Body).toBe("wake");
    expect(Date.now() - started).toBeLessThan(2_000);
    const emptyStart = Date.now();
    expect(
      (await sqs().send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }))).Messages,
    ).toBeUndefined();
    expect(Date.now() - emptyStart).toBeGreaterThanOrEqual(950);
  });

  it("batches report each entry: good ones sent, bad ones failed", async () => {
    const QueueUrl = await queue({ MaximumMessageSize: "1024" });
    const result = await sqs().send(
      new SendMessageBatchCommand({
        QueueUrl,
        Entries: [
          { Id: "ok-1", MessageBody: "one" },
          { Id: "too-big", MessageBody: "x".repeat(1025) },
          {
            Id: "ok-2",
            MessageBody: "two",
            MessageAttributes: { a: { DataType: "String", StringValue: "b" } },
          },
          { Id: "bad-delay", MessageBody: "x", DelaySeconds: 901 },
        ],
      }),
    );
    expect(result.Successful?.map((entry) => entry.Id)).toEqual(["ok-1", "ok-2"]);
    expect(result.Successful?.[1]?.MD5OfMessageAttributes).toBeDefined();
    expect(result.Failed?.map((entry) => [entry.Id, entry.Code, entry.SenderFault])).toEqual([
      ["too-big", "InvalidParameterValue", true],
      ["bad-delay", "InvalidParameterValue", true],
    ]);
    expect(result.Failed?.[0]?.Message).toContain("shorter than 1024 bytes");
    const { Messages } = await sqs().send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 10 }));
    expect(Messages?.map((message) => message.Body)).toEqual(["one", "two"]);
    const deleted = await sqs().send(
      new DeleteMessageBatchCommand({
        QueueUrl,
        Entries: [
          { Id: "a", ReceiptHandle: Messages![0]!.ReceiptHandle! },
          { Id: "b", ReceiptHandle: "not-a-handle" },
        ],
      }),
    );
    expect(deleted.Successful?.map((entry) => entry.Id)).toEqual(["a"]);
    expect(deleted.Failed?.map((entry) => [entry.Id, entry.Code])).toEqual([["b", "ReceiptHandleIsInvalid"]]);
    const changed = await sqs().send(
      new ChangeMessageVisibilityBatchCommand({
        QueueUrl,
        Entries: [{ Id: "c", ReceiptHandle: Messages![1]!.ReceiptHandle!, VisibilityTimeout: 0 }],
      }),
    );
    expect(changed.Successful?.map((entry) => entry.Id)).toEqual(["c"]);
    expect((await sqs().send(new ReceiveMessageCommand({ QueueUrl }))).Messages?.[0]?.Body).toBe("two");
  });

  it("refuses malformed batches as a whole", async () => {
    const QueueUrl = await queue();
    const entries = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ Id: `e${i}`, MessageBody: "x" }));
    expect((await failure(sqs().send(new SendMessageBatchCommand({ QueueUrl, Entries: [] })))).name).toBe(
      "EmptyBatchRequest",
    );
    expect(
      (await failure(sqs().send(new SendMessageBatchCommand({ QueueUrl, Entries: entries(11) })))).name,
    ).toBe("TooManyEntriesInBatchRequest");
    const twice = [
      { Id: "same", MessageBody: "a" },
      { Id: "same", MessageBody: "b" },
    ];
    expect((await failure(sqs().send(new SendMessageBatchCommand({ QueueUrl, Entries: twice })))).name).toBe(
      "BatchEntryIdsNotDistinct",
    );
    expect(
      (
        await failure(
          sqs().send(
            new SendMessageBatchCommand({ QueueUrl, Entries: [{ Id: "bad id!", MessageBody: "x" }] }),
          ),
        )
      ).name,
    ).toBe("InvalidBatchEntryId");
    const big = [
      { Id: "a", MessageBody: "x".repeat(600_000) },
      { Id: "b", MessageBody: "y".repeat(600_000) },
    ];
    expect((await failure(sqs().send(new SendMessageBatchCommand({ QueueUrl, Entries: big })))).name).toBe(
      "BatchRequestTooLong",
    );
  });

  it("accepts a 1 MiB message and refuses one byte more; refuses characters XML cannot carry", async () => {
    const QueueUrl = await queue();
    await sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: "m".repeat(1_048_576) }));
    const received = await sqs().send(new ReceiveMessageCommand({ QueueUrl }));
    expect(received.Messages?.[0]?.Body?.length).toBe(1_048_576);
    const tooLarge = await failure(
      sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: "m".repeat(1_048_577) })),
    );
    expect(tooLarge.name).toBe("InvalidParameterValue");
    const control = await failure(
      sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: "bell \u0007" })),
    );
    expect(control.name).toBe("InvalidMessageContents");
    const bounds = await failure(
      sqs().send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 11 })),
    );
    expect(bounds.name).toBe("InvalidParameterValue");
    expect(
      (await failure(sqs().send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 21 })))).name,
    ).toBe("InvalidParameterValue");
  });
});
