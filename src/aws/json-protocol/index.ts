export type { EncodedSqsRequest } from "./client-codec.js";
export { decodeSqsError, decodeSqsResponse, encodeSqsRequest } from "./client-codec.js";
export type { ErrorClass } from "./error-classification.js";
export { classifyAwsError } from "./error-classification.js";
export { bodyText } from "./http-body.js";
export type { EncodedSqsError } from "./server-codec.js";
export {
  checkSqsContentType,
  decodeSqsRequest,
  encodeSqsError,
  encodeSqsResponse,
  parseSqsTarget,
} from "./server-codec.js";
export type {
  MessageSystemAttributeName,
  MessageSystemAttributeNameForSends,
  QueueAttributeName,
} from "./sqs-enums.js";
export {
  MESSAGE_SYSTEM_ATTRIBUTE_NAMES,
  MESSAGE_SYSTEM_ATTRIBUTE_NAMES_FOR_SENDS,
  QUEUE_ATTRIBUTE_NAMES,
} from "./sqs-enums.js";
export type { SqsErrorName, SqsErrorOptions, SqsErrorSpec } from "./sqs-errors.js";
export { findSqsError, SQS_ERRORS, shapeName, sqsError, sqsErrorSpec } from "./sqs-errors.js";
export type { SqsInput, SqsOperation, SqsOperationShapes, SqsOutput, SqsRequest } from "./sqs-operations.js";
export {
  AWS_JSON_1_0,
  isSqsOperation,
  SQS_OPERATIONS,
  SQS_TARGET_PREFIX,
  sqsTarget,
} from "./sqs-operations.js";
export type * from "./sqs-types.js";
export {
  checkBatchEntries,
  checkMessageAttributes,
  checkMessageSystemAttributes,
  findInvalidCharacter,
  MAX_BATCH_ENTRIES,
  MAX_MESSAGE_ATTRIBUTES,
} from "./sqs-validation.js";
