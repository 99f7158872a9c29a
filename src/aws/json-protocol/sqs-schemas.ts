import type { StructureSchema } from "./schema.js";
import { list, map, scalar, structure, unit } from "./schema.js";
import type { SqsOperation } from "./sqs-operations.js";
import type * as T from "./sqs-types.js";

const { string, integer, long, boolean, blob } = scalar;
const strings = list(string);
const stringMap = map(string);

const messageAttributeValue = structure<T.MessageAttributeValue>(
  "MessageAttributeValue",
  {
    StringValue: string,
    BinaryValue: blob,
    StringListValues: strings,
    BinaryListValues: list(blob),
    DataType: string,
  },
  ["DataType"],
);

const messageSystemAttributeValue = structure<T.MessageSystemAttributeValue>(
  "MessageSystemAttributeValue",
  {
    StringValue: string,
    BinaryValue: blob,
    StringListValues: strings,
    BinaryListValues: list(blob),
    DataType: string,
  },
  ["DataType"],
);

const batchResultErrorEntry = structure<T.BatchResultErrorEntry>(
  "BatchResultErrorEntry",
  { Id: string, SenderFault: boolean, Code: string, Message: string },
  ["Id", "SenderFault", "Code"],
);

const message = structure<T.Message>("Message", {
  MessageId: string,
  ReceiptHandle: string,
  MD5OfBody: string,
  Body: string,
  Attributes: stringMap,
  MD5OfMessageAttributes: string,
  MessageAttributes: map(messageAttributeValue),
});

const idEntry = (name: string) => structure<T.DeleteMessageBatchResultEntry>(name, { Id: string }, ["Id"]);

const sendMessageBatchRequestEntry = structure<T.SendMessageBatchRequestEntry>(
  "SendMessageBatchRequestEntry",
  {
    Id: string,
    MessageBody: string,
    DelaySeconds: integer,
    MessageAttributes: map(messageAttributeValue),
    MessageSystemAttributes: map(messageSystemAttributeValue),
    MessageDeduplicationId: string,
    MessageGroupId: string,
  },
  ["Id", "MessageBody"],
);

const sendMessageBatchResultEntry = structure<T.SendMessageBatchResultEntry>(
  "SendMessageBatchResultEntry",
  {
    Id: string,
    MessageId: string,
    MD5OfMessageBody: string,
    MD5OfMessageAttributes: string,
    MD5OfMessageSystemAttributes: string,
    SequenceNumber: string,
  },
  ["Id", "MessageId", "MD5OfMessageBody"],
);

const listMessageMoveTasksResultEntry = structure<T.ListMessageMoveTasksResultEntry>(
  "ListMessageMoveTasksResultEntry",
  {
    TaskHandle: string,
    Status: string,
    SourceArn: string,
    DestinationArn: string,
    MaxNumberOfMessagesPerSecond: integer,
    ApproximateNumberOfMessagesMoved: long,
    ApproximateNumberOfMessagesToMove: long,
    FailureReason: string,
    StartedTimestamp: long,
  },
);

/** The schemas of one operation's request and result. */
export interface OperationSchemas {
  readonly input: StructureSchema;
  readonly output: StructureSchema;
}

/** Input and output schemas of every SQS operation, derived from the service model. */
export const SQS_SCHEMAS = {
  AddPermission: {
    input: structure<T.AddPermissionRequest>(
      "AddPermissionRequest",
      { QueueUrl: string, Label: string, AWSAccountIds: strings, Actions: strings },
      ["QueueUrl", "Label", "AWSAccountIds", "Actions"],
    ),
    output: unit,
  },
  CancelMessageMoveTask: {
    input: structure<T.CancelMessageMoveTaskRequest>("CancelMessageMoveTaskRequest", { TaskHandle: string }, [
      "TaskHandle",
    ]),
    output: structure<T.CancelMessageMoveTaskResult>("CancelMessageMoveTaskResult", {
      ApproximateNumberOfMessagesMoved: long,
    }),
  },
  ChangeMessageVisibility: {
    input: structure<T.ChangeMessageVisibilityRequest>(
      "ChangeMessageVisibilityRequest",
      { QueueUrl: string, ReceiptHandle: string, VisibilityTimeout: integer },
      ["QueueUrl", "ReceiptHandle", "VisibilityTimeout"],
    ),
    output: unit,
  },
  ChangeMessageVisibilityBatch: {
    input: structure<T.ChangeMessageVisibilityBatchRequest>(
      "ChangeMessageVisibilityBatchRequest",
      {
        QueueUrl: string,
        Entries: list(
          structure<T.ChangeMessageVisibilityBatchRequestEntry>(
            "ChangeMessageVisibilityBatchRequestEntry",
            { Id: string, ReceiptHandle: string, VisibilityTimeout: integer },
            ["Id", "ReceiptHandle"],
          ),
        ),
      },
      ["QueueUrl", "Entries"],
    ),
    output: structure<T.ChangeMessageVisibilityBatchResult>(
      "ChangeMessageVisibilityBatchResult",
      {
        Successful: list(idEntry("ChangeMessageVisibilityBatchResultEntry")),
        Failed: list(batchResultErrorEntry),
      },
      ["Successful", "Failed"],
    ),
  },
  CreateQueue: {
    input: structure<T.CreateQueueRequest>(
      "CreateQueueRequest",
      { QueueName: string, Attributes: stringMap, tags: stringMap },
      ["QueueName"],
    ),
    output: structure<T.CreateQueueResult>("CreateQueueResult", { QueueUrl: string }),
  },
  DeleteMessage: {
    input: structure<T.DeleteMessageRequest>(
      "DeleteMessageRequest",
      { QueueUrl: string, ReceiptHandle: string },
      ["QueueUrl", "ReceiptHandle"],
    ),
    output: unit,
  },
  DeleteMessageBatch: {
    input: structure<T.DeleteMessageBatchRequest>(
      "DeleteMessageBatchRequest",
      {
        QueueUrl: string,
        Entries: list(
          structure<T.DeleteMessageBatchRequestEntry>(
            "DeleteMessageBatchRequestEntry",
            { Id: string, ReceiptHandle: string },
            ["Id", "ReceiptHandle"],
          ),
        ),
      },
      ["QueueUrl", "Entries"],
    ),
    output: structure<T.DeleteMessageBatchResult>(
      "DeleteMessageBatchResult",
      { Successful: list(idEntry("DeleteMessageBatchResultEntry")), Failed: list(batchResultErrorEntry) },
      ["Successful", "Failed"],
    ),
  },
  DeleteQueue: {
    input: structure<T.DeleteQueueRequest>("DeleteQueueRequest", { QueueUrl: string }, ["QueueUrl"]),
    output: unit,
  },
  GetQueueAttributes: {
    input: structure<T.GetQueueAttributesRequest>(
      "GetQueueAttributesRequest",
      { QueueUrl: string, AttributeNames: strings },
      ["QueueUrl"],
    ),
    output: structure<T.GetQueueAttributesResult>("GetQueueAttributesResult", { Attributes: stringMap }),
  },
  GetQueueUrl: {
    input: structure<T.GetQueueUrlRequest>(
      "GetQueueUrlRequest",
      { QueueName: string, QueueOwnerAWSAccountId: string },
      ["QueueName"],
    ),
    output: structure<T.GetQueueUrlResult>("GetQueueUrlResult", { QueueUrl: string }),
  },
  ListDeadLetterSourceQueues: {
    input: structure<T.ListDeadLetterSourceQueuesRequest>(
      "ListDeadLetterSourceQueuesRequest",
      { QueueUrl: string, NextToken: string, MaxResults: integer },
      ["QueueUrl"],
    ),
    output: structure<T.ListDeadLetterSourceQueuesResult>(
      "ListDeadLetterSourceQueuesResult",
      { queueUrls: strings, NextToken: string },
      ["queueUrls"],
    ),
  },
  ListMessageMoveTasks: {
    input: structure<T.ListMessageMoveTasksRequest>(
      "ListMessageMoveTasksRequest",
      { SourceArn: string, MaxResults: integer },
      ["SourceArn"],
    ),
    output: structure<T.ListMessageMoveTasksResult>("ListMessageMoveTasksResult", {
      Results: list(listMessageMoveTasksResultEntry),
    }),
  },
  ListQueueTags: {
    input: structure<T.ListQueueTagsRequest>("ListQueueTagsRequest", { QueueUrl: string }, ["QueueUrl"]),
    output: structure<T.ListQueueTagsResult>("ListQueueTagsResult", { Tags: stringMap }),
  },
  ListQueues: {
    input: structure<T.ListQueuesRequest>("ListQueuesRequest", {
      QueueNamePrefix: string,
      NextToken: string,
      MaxResults: integer,
    }),
    output: structure<T.ListQueuesResult>("ListQueuesResult", { QueueUrls: strings, NextToken: string }),
  },
  PurgeQueue: {
    input: structure<T.PurgeQueueRequest>("PurgeQueueRequest", { QueueUrl: string }, ["QueueUrl"]),
    output: unit,
  },
  ReceiveMessage: {
    input: structure<T.ReceiveMessageRequest>(
      "ReceiveMessageRequest",
      {
        QueueUrl: string,
        AttributeNames: strings,
        MessageSystemAttributeNames: strings,
        MessageAttributeNames: strings,
        MaxNumberOfMessages: integer,
        VisibilityTimeout: integer,
        WaitTimeSeconds: integer,
        ReceiveRequestAttemptId: string,
      },
      ["QueueUrl"],
    ),
    output: structure<T.ReceiveMessageResult>("ReceiveMessageResult", { Messages: list(message) }),
  },
  RemovePermission: {
    input: structure<T.RemovePermissionRequest>(
      "RemovePermissionRequest",
      { QueueUrl: string, Label: string },
      ["QueueUrl", "Label"],
    ),
    output: unit,
  },
  SendMessage: {
    input: structure<T.SendMessageRequest>(
      "SendMessageRequest",
      {
        QueueUrl: string,
        MessageBody: string,
        DelaySeconds: integer,
        MessageAttributes: map(messageAttributeValue),
        MessageSystemAttributes: map(messageSystemAttributeValue),
        MessageDeduplicationId: string,
        MessageGroupId: string,
      },
      ["QueueUrl", "MessageBody"],
    ),
    output: structure<T.SendMessageResult>("SendMessageResult", {
      MD5OfMessageBody: string,
      MD5OfMessageAttributes: string,
      MD5OfMessageSystemAttributes: string,
      MessageId: string,
      SequenceNumber: string,
    }),
  },
  SendMessageBatch: {
    input: structure<T.SendMessageBatchRequest>(
      "SendMessageBatchRequest",
      { QueueUrl: string, Entries: list(sendMessageBatchRequestEntry) },
      ["QueueUrl", "Entries"],
    ),
    output: structure<T.SendMessageBatchResult>(
      "SendMessageBatchResult",
      { Successful: list(sendMessageBatchResultEntry), Failed: list(batchResultErrorEntry) },
      ["Successful", "Failed"],
    ),
  },
  SetQueueAttributes: {
    input: structure<T.SetQueueAttributesRequest>(
      "SetQueueAttributesRequest",
      { QueueUrl: string, Attributes: stringMap },
      ["QueueUrl", "Attributes"],
    ),
    output: unit,
  },
  StartMessageMoveTask: {
    input: structure<T.StartMessageMoveTaskRequest>(
      "StartMessageMoveTaskRequest",
      { SourceArn: string, DestinationArn: string, MaxNumberOfMessagesPerSecond: integer },
      ["SourceArn"],
    ),
    output: structure<T.StartMessageMoveTaskResult>("StartMessageMoveTaskResult", { TaskHandle: string }),
  },
  TagQueue: {
    input: structure<T.TagQueueRequest>("TagQueueRequest", { QueueUrl: string, Tags: stringMap }, [
      "QueueUrl",
      "Tags",
    ]),
    output: unit,
  },
  UntagQueue: {
    input: structure<T.UntagQueueRequest>("UntagQueueRequest", { QueueUrl: string, TagKeys: strings }, [
      "QueueUrl",
      "TagKeys",
    ]),
    output: unit,
  },
} as const satisfies Readonly<Record<SqsOperation, OperationSchemas>>;
