import type { MemoryProviderConfig, ProviderConfig } from "../../core/config.js";
import { QueueError } from "../../core/errors.js";
import { MemoryStore } from "../../engine/memory/memory-store.js";
import { QueueEngine } from "../../engine/queue-engine.js";
import { EngineProvider, engineCapabilities } from "../engine/engine-provider.js";

/** The default largest message: 1 MiB, body and attributes, like SQS. */
export const DEFAULT_MAX_MESSAGE_BYTES = 1_048_576;
/** Messages per batch call; the engine has no limit of its own, this keeps one call's work bounded. */
export const ENGINE_MAX_BATCH_SIZE = 100;

interface SharedEngine {
  readonly engine: QueueEngine;
  users: number;
}

// Named in-memory worlds of this process; each lives while a client uses it.
const shared = new Map<string, SharedEngine>();

function newEngine(config: MemoryProviderConfig, createQueues: boolean): QueueEngine {
  return new QueueEngine(new MemoryStore(), { ...config, createQueues });
}

/** A provider whose queues live in this process's memory; clients given the same `name` share them. */
export async function createMemoryProvider(
  config: ProviderConfig,
  options: { createQueues: boolean },
): Promise<EngineProvider> {
  const memory = config as MemoryProviderConfig;
  const maxMessageBytes = memory.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  if (!Number.isInteger(maxMessageBytes) || maxMessageBytes < 1)
    throw new QueueError("Configuration", "maxMessageBytes must be a whole number of bytes");
  const capabilities = engineCapabilities(maxMessageBytes, ENGINE_MAX_BATCH_SIZE);
  if (memory.name === undefined) {
    const engine = newEngine(memory, options.createQueues);
    return new EngineProvider(engine, "memory", capabilities, () => engine.close());
  }
  const name = memory.name;
  let entry = shared.get(name);
  if (entry === undefined) {
    entry = { engine: newEngine(memory, options.createQueues), users: 0 };
    shared.set(name, entry);
  }
  entry.users++;
  const owner = entry;
  let released = false;
  return new EngineProvider(owner.engine, "memory", capabilities, () => {
    if (released) return;
    released = true;
    if (--owner.users === 0) {
      shared.delete(name);
      owner.engine.close();
    }
  });
}
