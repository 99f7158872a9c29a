/** The attributes a dead-lettered message gains, on every provider. */
export const DEAD_LETTER_ATTRIBUTES = {
  reason: "DeadLetterReason",
  description: "DeadLetterErrorDescription",
  sourceQueue: "DeadLetterSourceQueue",
} as const;

/** Reasons a provider itself dead-letters with. */
export const DEAD_LETTER_REASONS = {
  maxDeliveryCount: "MaxDeliveryCountExceeded",
  expired: "TTLExpired",
} as const;

/** The suffix that makes a queue FIFO by its name alone, as on SQS. */
export const FIFO_SUFFIX = ".fifo";

/** The name of a queue's dead-letter queue: `<name>-dlq`, with `.fifo` kept last. */
export function deadLetterQueueName(name: string): string {
  return name.endsWith(FIFO_SUFFIX)
    ? `${name.slice(0, -FIFO_SUFFIX.length)}-dlq${FIFO_SUFFIX}`
    : `${name}-dlq`;
}
