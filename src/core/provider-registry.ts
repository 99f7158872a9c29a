import type { QueueConfig } from "./config.js";
import { QueueError } from "./errors.js";
import type { QueueProvider } from "./provider.js";

/** Builds a provider from its config; `createQueues` is already resolved. */
export type ProviderFactory = (
  config: QueueConfig["provider"],
  options: { createQueues: boolean },
) => Promise<QueueProvider>;

/** What a provider tells the factory about itself when it registers. */
export interface ProviderDefinition {
  /** The `provider.type` it serves. */
  readonly type: string;
  /** The URL schemes (before the first `:`) that name it, such as `amqp` and `amqps`. */
  readonly schemes: readonly string[];
  /** Whether queues are created on first use unless the config says otherwise. */
  readonly createsQueues: boolean;
  /** The config a URL of one of its schemes stands for; a bad URL is a `Configuration` error. */
  readonly fromUrl: (url: string) => QueueConfig;
  /** Loads the factory: a provider's code loads on first use, so an application pays only for the one it runs. */
  readonly load: () => Promise<ProviderFactory>;
}

const byType = new Map<string, ProviderDefinition>();
const byScheme = new Map<string, ProviderDefinition>();

/** Makes a provider available to `createClient` and `parseQueueUrl`, replacing one of the same type. */
export function registerProvider(definition: ProviderDefinition): void {
  if (typeof definition.type !== "string" || !/^[a-z][a-z0-9-]*$/.test(definition.type))
    throw new QueueError("Configuration", "a provider type is lowercase letters, digits and '-'");
  const replaced = byType.get(definition.type);
  if (replaced !== undefined) for (const scheme of replaced.schemes) byScheme.delete(scheme);
  byType.set(definition.type, definition);
  for (const scheme of definition.schemes) byScheme.set(scheme.toLowerCase(), definition);
}

/** The provider registered for `type`. */
export function providerOfType(type: string): ProviderDefinition | undefined {
  return byType.get(type);
}

/** The provider a URL scheme names. */
export function providerOfScheme(scheme: string): ProviderDefinition | undefined {
  return byScheme.get(scheme);
}

/** The types of every registered provider, in the order they registered. */
export function registeredProviderTypes(): string[] {
  return [...byType.keys()];
}
