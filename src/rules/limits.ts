import { QueueError } from "../core/errors.js";
import type { EngineProviderOptions } from "./queue-defaults.js";

/** The default largest message: 1 MiB, body and attributes, like SQS. */
export const DEFAULT_MAX_MESSAGE_BYTES = 1_048_576;
/** Messages per batch call where the store has no limit of its own: it keeps one call's work bounded. */
export const MAX_BATCH_SIZE = 100;

/** The largest message a provider configured with `options` accepts, checked. */
export function maxMessageBytesOf(options: EngineProviderOptions): number {
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  if (!Number.isInteger(maxMessageBytes) || maxMessageBytes < 1)
    throw new QueueError("Configuration", "maxMessageBytes must be a whole number of bytes");
  return maxMessageBytes;
}
