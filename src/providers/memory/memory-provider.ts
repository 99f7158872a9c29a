import type { ProviderConfig } from "../../core/config.js";
import { MemoryStore } from "../../engine/memory/memory-store.js";
import { QueueEngine } from "../../engine/queue-engine.js";
import { fullCapabilitiesWithTopics } from "../../rules/full-capabilities.js";
import { MAX_BATCH_SIZE, maxMessageBytesOf } from "../../rules/limits.js";
import { EngineProvider } from "../engine/engine-provider.js";
import { acquireEngine } from "../engine/shared-engines.js";
import type { MemoryProviderConfig } from "./config.js";

/** A provider whose queues live in this process's memory; clients given the same `name` share them. */
export async function createMemoryProvider(
  config: ProviderConfig,
  options: { createQueues: boolean },
): Promise<EngineProvider> {
  const memory = config as MemoryProviderConfig;
  const capabilities = fullCapabilitiesWithTopics(maxMessageBytesOf(memory), MAX_BATCH_SIZE);
  const create = () => new QueueEngine(new MemoryStore(), { ...memory, createQueues: options.createQueues });
  if (memory.name === undefined) {
    const engine = create();
    return new EngineProvider(engine, "memory", capabilities, () => engine.close());
  }
  const { engine, release } = acquireEngine(`memory:${memory.name}`, create);
  return new EngineProvider(engine, "memory", capabilities, release);
}
