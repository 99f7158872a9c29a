import type { ProviderType } from "../../core/capabilities.js";
import type { QueueClient } from "../../core/queue-client.js";
import { StandardQueueClient } from "../../core/standard-queue-client.js";
import type { QueueEngine } from "../../engine/queue-engine.js";
import { fullCapabilitiesWithTopics } from "../../rules/full-capabilities.js";
import { DEFAULT_MAX_MESSAGE_BYTES, MAX_BATCH_SIZE } from "../../rules/limits.js";
import { EngineProvider } from "./engine-provider.js";

/**
 * A standard client over an engine someone else owns (the one `queue-runtime serve` runs): closing
 * the client leaves the engine open for its owner to close.
 */
export function engineClient(engine: QueueEngine, providerType: ProviderType): QueueClient {
  const capabilities = fullCapabilitiesWithTopics(DEFAULT_MAX_MESSAGE_BYTES, MAX_BATCH_SIZE);
  const provider = new EngineProvider(engine, providerType, capabilities, () => undefined);
  return new StandardQueueClient(provider, { clock: engine.clock });
}
