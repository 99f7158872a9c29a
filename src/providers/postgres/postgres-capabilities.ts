import type { Capabilities } from "../../core/capabilities.js";
import { fullCapabilities } from "../../rules/full-capabilities.js";

/** The postgres provider's capabilities: the engine's whole model in SQL, and topics with every kind of filter (evaluated in the provider). */
export function postgresCapabilities(maxMessageBytes: number, maxBatchSize: number): Capabilities {
  return Object.freeze({
    ...fullCapabilities(maxMessageBytes, maxBatchSize),
    topics: true,
    filters: Object.freeze(["correlation", "sql", "policy"] as const),
  });
}
