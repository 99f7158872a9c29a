import type { Capabilities } from "../core/capabilities.js";
import { MAX_DURATION_MS } from "./queue-defaults.js";

/** The capabilities of a provider that carries the whole model natively (the engine, postgres). */
export function fullCapabilities(maxMessageBytes: number, maxBatchSize: number): Capabilities {
  return Object.freeze({
    sessions: "native",
    batching: true,
    maxBatchSize,
    maxMessageBytes,
    deadLetter: "native",
    delayedDelivery: true,
    maxDelayMs: MAX_DURATION_MS,
    sessionState: true,
    lockRenewal: true,
    ordering: "fifo",
    timeToLive: true,
    redrive: true,
    lockedCount: true,
    peek: true,
    topics: false,
    filters: [],
    subscriptionRedrive: true,
    entityNames: "apart",
  });
}

/**
 * The whole model with topics, every kind of subscription filter evaluated by the provider with
 * the shared filters (the engine, postgres).
 */
export function fullCapabilitiesWithTopics(maxMessageBytes: number, maxBatchSize: number): Capabilities {
  return Object.freeze({
    ...fullCapabilities(maxMessageBytes, maxBatchSize),
    topics: true,
    filters: Object.freeze(["correlation", "sql", "policy"] as const),
  });
}
