import type * as T from "./sqs-types.js";

/** Every operation of the SQS API (2012-11-05); `X-Amz-Target` is `AmazonSQS.` plus one of these. */
export const SQS_OPERATIONS = [
  "AddPermission",
  "CancelMessageMoveTask",
  "ChangeMessageVisibility",
  "ChangeMessageVisibilityBatch",
  "CreateQueue",
  "DeleteMessage",
  "DeleteMessageBatch",
  "DeleteQueue",
  "GetQueueAttributes",
  "GetQueueUrl",
  "ListDeadLetterSourceQueues",
  "ListMessageMoveTasks",
  "ListQueueTags",
  "ListQueues",
  "PurgeQueue",
  "ReceiveMessage",
  "RemovePermission",
  "SendMessage",
  "SendMessageBatch",
  "SetQueueAttributes",
  "StartMessageMoveTask",
  "TagQueue",
  "UntagQueue",
] as const;

/** An SQS operation name. */
export type SqsOperation = (typeof SQS_OPERATIONS)[number];

/** The `X-Amz-Target` prefix of SQS (the model's `serviceTarget`). */
export const SQS_TARGET_PREFIX = "AmazonSQS.";

/** The content type of AWS JSON 1.0 requests and responses. */
export const AWS_JSON_1_0 = "application/x-amz-json-1.0";

/** The input and output type of each operation. */
export interface SqsOperationShapes {
  AddPermission: { input: T.AddPermissionRequest; output: T.EmptyResult };
  CancelMessageMoveTask: { input: T.CancelMessageMoveTaskRequest; output: T.CancelMessageMoveTaskResult };
  ChangeMessageVisibility: { input: T.ChangeMessageVisibilityRequest; output: T.EmptyResult };
  ChangeMessageVisibilityBatch: {
    input: T.ChangeMessageVisibilityBatchRequest;
    output: T.ChangeMessageVisibilityBatchResult;
  };
  CreateQueue: { input: T.CreateQueueRequest; output: T.CreateQueueResult };
  DeleteMessage: { input: T.DeleteMessageRequest; output: T.EmptyResult };
  DeleteMessageBatch: { input: T.DeleteMessageBatchRequest; output: T.DeleteMessageBatchResult };
  DeleteQueue: { input: T.DeleteQueueRequest; output: T.EmptyResult };
  GetQueueAttributes: { input: T.GetQueueAttributesRequest; output: T.GetQueueAttributesResult };
  GetQueueUrl: { input: T.GetQueueUrlRequest; output: T.GetQueueUrlResult };
  ListDeadLetterSourceQueues: {
    input: T.ListDeadLetterSourceQueuesRequest;
    output: T.ListDeadLetterSourceQueuesResult;
  };
  ListMessageMoveTasks: { input: T.ListMessageMoveTasksRequest; output: T.ListMessageMoveTasksResult };
  ListQueueTags: { input: T.ListQueueTagsRequest; output: T.ListQueueTagsResult };
  ListQueues: { input: T.ListQueuesRequest; output: T.ListQueuesResult };
  PurgeQueue: { input: T.PurgeQueueRequest; output: T.EmptyResult };
  ReceiveMessage: { input: T.ReceiveMessageRequest; output: T.ReceiveMessageResult };
  RemovePermission: { input: T.RemovePermissionRequest; output: T.EmptyResult };
  SendMessage: { input: T.SendMessageRequest; output: T.SendMessageResult };
  SendMessageBatch: { input: T.SendMessageBatchRequest; output: T.SendMessageBatchResult };
  SetQueueAttributes: { input: T.SetQueueAttributesRequest; output: T.EmptyResult };
  StartMessageMoveTask: { input: T.StartMessageMoveTaskRequest; output: T.StartMessageMoveTaskResult };
  TagQueue: { input: T.TagQueueRequest; output: T.EmptyResult };
  UntagQueue: { input: T.UntagQueueRequest; output: T.EmptyResult };
}

/** The request type of an operation. */
export type SqsInput<Op extends SqsOperation> = SqsOperationShapes[Op]["input"];

/** The result type of an operation. */
export type SqsOutput<Op extends SqsOperation> = SqsOperationShapes[Op]["output"];

/** A decoded request: switching on `operation` narrows `input`. */
export type SqsRequest = {
  [Op in SqsOperation]: { readonly operation: Op; readonly input: SqsInput<Op> };
}[SqsOperation];

const OPERATIONS: ReadonlySet<string> = new Set(SQS_OPERATIONS);

/** True when `name` is an SQS operation. */
export function isSqsOperation(name: string): name is SqsOperation {
  return OPERATIONS.has(name);
}

/** The `X-Amz-Target` value of an operation. */
export function sqsTarget(operation: SqsOperation): string {
  return `${SQS_TARGET_PREFIX}${operation}`;
}
