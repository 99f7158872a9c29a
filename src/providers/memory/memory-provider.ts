import type { EngineProviderOptions, MemoryProviderConfig, ProviderConfig } from "../../core/config.js";
import { QueueError } from "../../core/errors.js";
import { MemoryStore } from "../../engine/memory/memory-store.js";
import { QueueEngine } from "../../engine/queue-engine.js";
import { EngineProvider, engineCapabilities } from "../engine/engine-provider.js";
import { acquireEngine } from "../engine/shared-engines.js";

/** The default largest message: 1 MiB, body and attributes, like SQS. */
export const DEFAULT_MAX_MESSAGE_BYTES = 1_048_576;
/** Messages per batch call; the engine has no limit of its own, this keeps one call's work bounded. */
export const ENGINE_MAX_BATCH_SIZE = 100;

/** The largest message an engine provider accepts, checked. */
export function maxMessageBytesOf(options: EngineProviderOptions): number {
  const maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  if (!Number.isInteger(maxMessageBytes) || maxMessageBytes < 1)
    throw new QueueError("Configuration", "maxMessageBytes must be a whole number of bytes");
  return maxMessageBytes;
}

/** A provider whose queues live in this process's memory; clients given the same `name` share them. */
export async function createMemoryProvider(
  config: ProviderConfig,
  options: { createQueues: boolean },
): Promise<EngineProvider> {
  const memory = config as MemoryProviderConfig;
  const capabilities = engineCapabilities(maxMessageBytesOf(memory), ENGINE_MAX_BATCH_SIZE);
  const create = () => new QueueEngine(new MemoryStore(), { ...memory, createQueues: options.createQueues });
  if (memory.name === undefined) {
    const engine = create();
    return new EngineProvider(engine, "memory", capabilities, () => engine.close());
  }
  const { engine, release } = acquireEngine(`memory:${memory.name}`, create);
  return new EngineProvider(engine, "memory", capabilities, release);
}
