/** The enumerations of the SQS model whose values a server validates and a client may offer. */

/** Names of queue attributes (`QueueAttributeName`). */
export const QUEUE_ATTRIBUTE_NAMES = [
  "All",
  "Policy",
  "VisibilityTimeout",
  "MaximumMessageSize",
  "MessageRetentionPeriod",
  "ApproximateNumberOfMessages",
  "ApproximateNumberOfMessagesNotVisible",
  "CreatedTimestamp",
  "LastModifiedTimestamp",
  "QueueArn",
  "ApproximateNumberOfMessagesDelayed",
  "DelaySeconds",
  "ReceiveMessageWaitTimeSeconds",
  "RedrivePolicy",
  "FifoQueue",
  "ContentBasedDeduplication",
  "KmsMasterKeyId",
  "KmsDataKeyReusePeriodSeconds",
  "DeduplicationScope",
  "FifoThroughputLimit",
  "RedriveAllowPolicy",
  "SqsManagedSseEnabled",
] as const;

/** A queue attribute name. */
export type QueueAttributeName = (typeof QUEUE_ATTRIBUTE_NAMES)[number];

/** Names of the system attributes a received message can carry (`MessageSystemAttributeName`). */
export const MESSAGE_SYSTEM_ATTRIBUTE_NAMES = [
  "All",
  "SenderId",
  "SentTimestamp",
  "ApproximateReceiveCount",
  "ApproximateFirstReceiveTimestamp",
  "SequenceNumber",
  "MessageDeduplicationId",
  "MessageGroupId",
  "AWSTraceHeader",
  "DeadLetterQueueSourceArn",
] as const;

/** A message system attribute name. */
export type MessageSystemAttributeName = (typeof MESSAGE_SYSTEM_ATTRIBUTE_NAMES)[number];

/** Names of the system attributes a sender may set (`MessageSystemAttributeNameForSends`). */
export const MESSAGE_SYSTEM_ATTRIBUTE_NAMES_FOR_SENDS = ["AWSTraceHeader"] as const;

/** A system attribute name a sender may set. */
export type MessageSystemAttributeNameForSends = (typeof MESSAGE_SYSTEM_ATTRIBUTE_NAMES_FOR_SENDS)[number];
