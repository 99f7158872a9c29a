/** `queue-runtime/processing`: the in-process retrying work queue. */
export { MessageQueue } from "./message-queue.js";
export type { MessageOutcome } from "./message-queue-result.js";
export { isMessageQueueResult, MESSAGE_QUEUE_RESULTS, MessageQueueResult } from "./message-queue-result.js";
export type {
  CompleteProcessing,
  MessageProcessingCompleted,
  MessageQueueOptions,
  MessageQueueSettings,
  ProcessingContext,
  ProcessMessage,
  StartOptions,
  StopOptions,
} from "./options.js";
export { DEFAULT_INTERVAL_MS, DEFAULT_SETTINGS } from "./options.js";
export type { MessageHandle } from "./queued-message.js";
export { MessageState } from "./queued-message.js";
export { isRetryable, RetryableError } from "./retryable-error.js";
