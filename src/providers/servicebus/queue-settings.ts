import type { CreateQueueOptions } from "@azure/service-bus";
import { formatIsoDuration } from "../../azure/iso-duration.js";
import type { QueueOptions } from "../../core/admin.js";
import { QueueError } from "../../core/errors.js";
import { DEAD_LETTER_SUFFIX } from "./message-mapping.js";

/** Service Bus's "never dead-letter for deliveries": its largest MaxDeliveryCount. */
export const UNLIMITED_DELIVERIES = 2_147_483_647;

/** The Service Bus settings of queue-runtime's queue options; what Service Bus cannot do is refused, never dropped. */
export function createOptions(options: QueueOptions): CreateQueueOptions {
  if (options.deadLetterQueue !== undefined)
    throw new QueueError(
      "Unsupported",
      `Service Bus keeps every queue's dead letters in <queue>${DEAD_LETTER_SUFFIX}; deadLetterQueue cannot name another`,
    );
  if (options.defaultDelayMs !== undefined && options.defaultDelayMs > 0)
    throw new QueueError(
      "Unsupported",
      "Service Bus queues have no default delay; send each message with delayMs",
    );
  const settings: CreateQueueOptions = {};
  if (options.fifo === true || options.requiresSession === true) settings.requiresSession = true;
  if (options.lockDurationMs !== undefined) settings.lockDuration = formatIsoDuration(options.lockDurationMs);
  if (options.maxDeliveryCount !== undefined)
    settings.maxDeliveryCount = options.maxDeliveryCount ?? UNLIMITED_DELIVERIES;
  if (options.defaultTimeToLiveMs !== undefined)
    settings.defaultMessageTimeToLive = formatIsoDuration(options.defaultTimeToLiveMs);
  if (options.deadLetterOnExpiration !== undefined)
    settings.deadLetteringOnMessageExpiration = options.deadLetterOnExpiration;
  if (options.deduplicationWindowMs !== undefined && options.deduplicationWindowMs > 0) {
    settings.requiresDuplicateDetection = true;
    settings.duplicateDetectionHistoryTimeWindow = formatIsoDuration(options.deduplicationWindowMs);
  }
  return settings;
}
