/**
 * Request and result shapes of the SQS operations (API 2012-11-05), member names exactly as the
 * service model spells them and as they travel in AWS JSON 1.0 bodies. Binary values are bytes
 * here; the codec turns them into and out of the wire's base64.
 */

/** Queue attributes: names (`QUEUE_ATTRIBUTE_NAMES`) to values, every value a string. */
export type QueueAttributeMap = Record<string, string>;

/** Queue tags. */
export type TagMap = Record<string, string>;

/** A message attribute: `DataType` is `String`, `Number` or `Binary`, optionally `.label`-suffixed. */
export interface MessageAttributeValue {
  StringValue?: string;
  BinaryValue?: Uint8Array;
  /** Reserved by SQS, not implemented there. */
  StringListValues?: string[];
  /** Reserved by SQS, not implemented there. */
  BinaryListValues?: Uint8Array[];
  DataType: string;
}

/** A message system attribute a sender sets (only `AWSTraceHeader`, of type `String`). */
export interface MessageSystemAttributeValue {
  StringValue?: string;
  BinaryValue?: Uint8Array;
  StringListValues?: string[];
  BinaryListValues?: Uint8Array[];
  DataType: string;
}

/** A received message. */
export interface Message {
  MessageId?: string;
  ReceiptHandle?: string;
  MD5OfBody?: string;
  Body?: string;
  /** Requested system attributes (`MESSAGE_SYSTEM_ATTRIBUTE_NAMES`), every value a string. */
  Attributes?: Record<string, string>;
  /** Over the returned attributes only. */
  MD5OfMessageAttributes?: string;
  MessageAttributes?: Record<string, MessageAttributeValue>;
}

/** One entry of a batch that failed. */
export interface BatchResultErrorEntry {
  Id: string;
  /** True when the caller is at fault. */
  SenderFault: boolean;
  Code: string;
  Message?: string;
}

/** The empty result of operations that return nothing. */
export type EmptyResult = Record<string, never>;

/** AddPermission input. */
export interface AddPermissionRequest {
  QueueUrl: string;
  Label: string;
  AWSAccountIds: string[];
  Actions: string[];
}

/** CancelMessageMoveTask input. */
export interface CancelMessageMoveTaskRequest {
  TaskHandle: string;
}

/** CancelMessageMoveTask result. */
export interface CancelMessageMoveTaskResult {
  ApproximateNumberOfMessagesMoved?: number;
}

/** ChangeMessageVisibility input. */
export interface ChangeMessageVisibilityRequest {
  QueueUrl: string;
  ReceiptHandle: string;
  /** Seconds from now, 0 to 43200. */
  VisibilityTimeout: number;
}

/** One entry of ChangeMessageVisibilityBatch. */
export interface ChangeMessageVisibilityBatchRequestEntry {
  Id: string;
  ReceiptHandle: string;
  VisibilityTimeout?: number;
}

/** ChangeMessageVisibilityBatch input. */
export interface ChangeMessageVisibilityBatchRequest {
  QueueUrl: string;
  Entries: ChangeMessageVisibilityBatchRequestEntry[];
}

/** One successful entry of ChangeMessageVisibilityBatch. */
export interface ChangeMessageVisibilityBatchResultEntry {
  Id: string;
}

/** ChangeMessageVisibilityBatch result; SQS omits an empty list. */
export interface ChangeMessageVisibilityBatchResult {
  Successful: ChangeMessageVisibilityBatchResultEntry[];
  Failed: BatchResultErrorEntry[];
}

/** CreateQueue input. */
export interface CreateQueueRequest {
  QueueName: string;
  Attributes?: QueueAttributeMap;
  /** Lower-case in the model, unlike every other member. */
  tags?: TagMap;
}

/** CreateQueue result. */
export interface CreateQueueResult {
  QueueUrl?: string;
}

/** DeleteMessage input. */
export interface DeleteMessageRequest {
  QueueUrl: string;
  ReceiptHandle: string;
}

/** One entry of DeleteMessageBatch. */
export interface DeleteMessageBatchRequestEntry {
  Id: string;
  ReceiptHandle: string;
}

/** DeleteMessageBatch input. */
export interface DeleteMessageBatchRequest {
  QueueUrl: string;
  Entries: DeleteMessageBatchRequestEntry[];
}

/** One successful entry of DeleteMessageBatch. */
export interface DeleteMessageBatchResultEntry {
  Id: string;
}

/** DeleteMessageBatch result; SQS omits an empty list. */
export interface DeleteMessageBatchResult {
  Successful: DeleteMessageBatchResultEntry[];
  Failed: BatchResultErrorEntry[];
}

/** DeleteQueue input. */
export interface DeleteQueueRequest {
  QueueUrl: string;
}

/** GetQueueAttributes input. */
export interface GetQueueAttributesRequest {
  QueueUrl: string;
  /** See `QUEUE_ATTRIBUTE_NAMES`. */
  AttributeNames?: string[];
}

/** GetQueueAttributes result. */
export interface GetQueueAttributesResult {
  Attributes?: QueueAttributeMap;
}

/** GetQueueUrl input. */
export interface GetQueueUrlRequest {
  QueueName: string;
  QueueOwnerAWSAccountId?: string;
}

/** GetQueueUrl result. */
export interface GetQueueUrlResult {
  QueueUrl?: string;
}

/** ListDeadLetterSourceQueues input. */
export interface ListDeadLetterSourceQueuesRequest {
  QueueUrl: string;
  NextToken?: string;
  MaxResults?: number;
}

/** ListDeadLetterSourceQueues result. */
export interface ListDeadLetterSourceQueuesResult {
  /** Lower-case in the model. */
  queueUrls: string[];
  NextToken?: string;
}

/** ListMessageMoveTasks input. */
export interface ListMessageMoveTasksRequest {
  SourceArn: string;
  MaxResults?: number;
}

/** One move task. */
export interface ListMessageMoveTasksResultEntry {
  TaskHandle?: string;
  /** `RUNNING`, `COMPLETED`, `CANCELLING`, `CANCELLED` or `FAILED`. */
  Status?: string;
  SourceArn?: string;
  DestinationArn?: string;
  MaxNumberOfMessagesPerSecond?: number;
  ApproximateNumberOfMessagesMoved?: number;
  ApproximateNumberOfMessagesToMove?: number;
  FailureReason?: string;
  /** Milliseconds since the epoch. */
  StartedTimestamp?: number;
}

/** ListMessageMoveTasks result. */
export interface ListMessageMoveTasksResult {
  Results?: ListMessageMoveTasksResultEntry[];
}

/** ListQueues input. */
export interface ListQueuesRequest {
  QueueNamePrefix?: string;
  NextToken?: string;
  MaxResults?: number;
}

/** ListQueues result. */
export interface ListQueuesResult {
  QueueUrls?: string[];
  NextToken?: string;
}

/** ListQueueTags input. */
export interface ListQueueTagsRequest {
  QueueUrl: string;
}

/** ListQueueTags result. */
export interface ListQueueTagsResult {
  Tags?: TagMap;
}

/** PurgeQueue input. */
export interface PurgeQueueRequest {
  QueueUrl: string;
}

/** ReceiveMessage input. */
export interface ReceiveMessageRequest {
  QueueUrl: string;
  /** Deprecated in favour of `MessageSystemAttributeNames`. */
  AttributeNames?: string[];
  /** See `MESSAGE_SYSTEM_ATTRIBUTE_NAMES`. */
  MessageSystemAttributeNames?: string[];
  /** Exact names, `prefix.*`, or `All` / `.*` for all. */
  MessageAttributeNames?: string[];
  MaxNumberOfMessages?: number;
  VisibilityTimeout?: number;
  WaitTimeSeconds?: number;
  ReceiveRequestAttemptId?: string;
}

/** ReceiveMessage result; SQS omits `Messages` when none were received. */
export interface ReceiveMessageResult {
  Messages?: Message[];
}

/** RemovePermission input. */
export interface RemovePermissionRequest {
  QueueUrl: string;
  Label: string;
}

/** SendMessage input. */
export interface SendMessageRequest {
  QueueUrl: string;
  MessageBody: string;
  DelaySeconds?: number;
  MessageAttributes?: Record<string, MessageAttributeValue>;
  /** See `MESSAGE_SYSTEM_ATTRIBUTE_NAMES_FOR_SENDS`. */
  MessageSystemAttributes?: Record<string, MessageSystemAttributeValue>;
  MessageDeduplicationId?: string;
  MessageGroupId?: string;
}

/** SendMessage result. */
export interface SendMessageResult {
  MD5OfMessageBody?: string;
  MD5OfMessageAttributes?: string;
  MD5OfMessageSystemAttributes?: string;
  MessageId?: string;
  SequenceNumber?: string;
}

/** One entry of SendMessageBatch. */
export interface SendMessageBatchRequestEntry {
  Id: string;
  MessageBody: string;
  DelaySeconds?: number;
  MessageAttributes?: Record<string, MessageAttributeValue>;
  MessageSystemAttributes?: Record<string, MessageSystemAttributeValue>;
  MessageDeduplicationId?: string;
  MessageGroupId?: string;
}

/** SendMessageBatch input. */
export interface SendMessageBatchRequest {
  QueueUrl: string;
  Entries: SendMessageBatchRequestEntry[];
}

/** One successful entry of SendMessageBatch. */
export interface SendMessageBatchResultEntry {
  Id: string;
  MessageId: string;
  MD5OfMessageBody: string;
  MD5OfMessageAttributes?: string;
  MD5OfMessageSystemAttributes?: string;
  SequenceNumber?: string;
}

/** SendMessageBatch result; SQS omits an empty list. */
export interface SendMessageBatchResult {
  Successful: SendMessageBatchResultEntry[];
  Failed: BatchResultErrorEntry[];
}

/** SetQueueAttributes input. */
export interface SetQueueAttributesRequest {
  QueueUrl: string;
  Attributes: QueueAttributeMap;
}

/** StartMessageMoveTask input. */
export interface StartMessageMoveTaskRequest {
  SourceArn: string;
  DestinationArn?: string;
  MaxNumberOfMessagesPerSecond?: number;
}

/** StartMessageMoveTask result. */
export interface StartMessageMoveTaskResult {
  TaskHandle?: string;
}

/** TagQueue input. */
export interface TagQueueRequest {
  QueueUrl: string;
  Tags: TagMap;
}

/** UntagQueue input. */
export interface UntagQueueRequest {
  QueueUrl: string;
  TagKeys: string[];
}
