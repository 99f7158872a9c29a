/**
 * The names list and map members travel under in the AWS query protocol: the SQS model's
 * `xmlName` of each such member, by structure and member. Every list and map member of SQS is
 * flattened: `AttributeName.1=All`, `<Message>...</Message><Message>...</Message>`.
 */
export const QUERY_MEMBER_NAMES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  AddPermissionRequest: { AWSAccountIds: "AWSAccountId", Actions: "ActionName" },
  ChangeMessageVisibilityBatchRequest: { Entries: "ChangeMessageVisibilityBatchRequestEntry" },
  ChangeMessageVisibilityBatchResult: {
    Successful: "ChangeMessageVisibilityBatchResultEntry",
    Failed: "BatchResultErrorEntry",
  },
  CreateQueueRequest: { Attributes: "Attribute", tags: "Tag" },
  DeleteMessageBatchRequest: { Entries: "DeleteMessageBatchRequestEntry" },
  DeleteMessageBatchResult: { Successful: "DeleteMessageBatchResultEntry", Failed: "BatchResultErrorEntry" },
  GetQueueAttributesRequest: { AttributeNames: "AttributeName" },
  GetQueueAttributesResult: { Attributes: "Attribute" },
  ListDeadLetterSourceQueuesResult: { queueUrls: "QueueUrl" },
  ListMessageMoveTasksResult: { Results: "ListMessageMoveTasksResultEntry" },
  ListQueueTagsResult: { Tags: "Tag" },
  ListQueuesResult: { QueueUrls: "QueueUrl" },
  Message: { Attributes: "Attribute", MessageAttributes: "MessageAttribute" },
  MessageAttributeValue: { StringListValues: "StringListValue", BinaryListValues: "BinaryListValue" },
  MessageSystemAttributeValue: { StringListValues: "StringListValue", BinaryListValues: "BinaryListValue" },
  ReceiveMessageRequest: {
    AttributeNames: "AttributeName",
    // The model gives both the same name; a query request's `AttributeName.N` fills the first.
    MessageSystemAttributeNames: "AttributeName",
    MessageAttributeNames: "MessageAttributeName",
  },
  ReceiveMessageResult: { Messages: "Message" },
  SendMessageBatchRequest: { Entries: "SendMessageBatchRequestEntry" },
  SendMessageBatchRequestEntry: {
    MessageAttributes: "MessageAttribute",
    MessageSystemAttributes: "MessageSystemAttribute",
  },
  SendMessageBatchResult: { Successful: "SendMessageBatchResultEntry", Failed: "BatchResultErrorEntry" },
  SendMessageRequest: {
    MessageAttributes: "MessageAttribute",
    MessageSystemAttributes: "MessageSystemAttribute",
  },
  SetQueueAttributesRequest: { Attributes: "Attribute" },
  TagQueueRequest: { Tags: "Tag" },
  UntagQueueRequest: { TagKeys: "TagKey" },
};

/** The map members whose entries name their key `Key` (tags); every other map's entries say `Name`. */
const KEYED_MAPS: ReadonlySet<string> = new Set([
  "CreateQueueRequest.tags",
  "TagQueueRequest.Tags",
  "ListQueueTagsResult.Tags",
]);

/** The name member `member` of structure `structure` travels under. */
export function queryName(structure: string, member: string): string {
  return QUERY_MEMBER_NAMES[structure]?.[member] ?? member;
}

/** What the key of an entry of map member `member` of `structure` is called: `Key` or `Name`. */
export function mapKeyName(structure: string, member: string): "Key" | "Name" {
  return KEYED_MAPS.has(`${structure}.${member}`) ? "Key" : "Name";
}
