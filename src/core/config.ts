import type { RetryPolicy } from "./retry.js";
import type { TelemetryOption } from "./telemetry/telemetry-option.js";

/**
 * The config of every registered provider by its type. Each provider's folder adds its own entry
 * (`declare module`), so `ProviderConfig` knows every shipped provider while `src/core` names none.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the providers through declaration merging.
export interface ProviderConfigs {}

/** A provider of your own, registered with `QueueClientFactory.registerProvider`. */
export interface CustomProviderConfig {
  type: string;
  [option: string]: unknown;
}

/** Which provider a client uses, and its options. */
export type ProviderConfig = ProviderConfigs[keyof ProviderConfigs] | CustomProviderConfig;

/** Everything `createClient` needs. */
export interface QueueConfig {
  provider: ProviderConfig;
  /** How transient failures are repeated (default: 3 attempts, 100 ms doubling to 10 s, jitter). */
  retryPolicy?: Partial<RetryPolicy>;
  /** The most one call may take, receive waits excluded (default 30 000). */
  timeouts?: { operationMs?: number };
  /** Create a queue on first use (default true for memory, sqlite, postgres and the brokers, false for cloud providers). */
  createQueues?: boolean;
  /**
   * OpenTelemetry spans and metrics (`@opentelemetry/api`, an optional peer dependency): by default
   * to the global providers once an SDK registers them; `false` records nothing;
   * `{ tracerProvider?, meterProvider? }` records to those providers instead.
   */
  telemetry?: TelemetryOption;
}
