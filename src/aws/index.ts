export type { AwsErrorDetails, AwsErrorOptions, AwsFault } from "./aws-error.js";
export { AwsError } from "./aws-error.js";
export * from "./json-protocol/index.js";
export type { Md5AttributeValue } from "./message-md5.js";
export { md5OfMessageAttributes, md5OfMessageBody, md5OfMessageSystemAttributes } from "./message-md5.js";
export * from "./query-protocol/index.js";
export * from "./sigv4/index.js";
