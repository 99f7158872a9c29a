import type { Clock } from "./clock.js";
import type { ProviderConfig, QueueConfig } from "./config.js";
import { QueueError } from "./errors.js";
import type { QueueProvider } from "./provider.js";
import {
  type ProviderFactory,
  providerOfType,
  registeredProviderTypes,
  registerProvider,
} from "./provider-registry.js";
import type { QueueClient } from "./queue-client.js";
import { parseQueueUrl, untypedUrlConfig } from "./queue-url.js";
import { checkStandardClientOptions, StandardQueueClient } from "./standard-queue-client.js";
import { loadOpenTelemetry } from "./telemetry/open-telemetry.js";

function clockOf(provider: ProviderConfig): Clock | undefined {
  const clock = (provider as { clock?: unknown }).clock;
  return clock === undefined ? undefined : (clock as Clock);
}

/** A bad option is a `Configuration` error, whichever check found it. */
function configurationError(error: unknown): unknown {
  return QueueError.is(error, "Validation")
    ? new QueueError("Configuration", error.message, { cause: error })
    : error;
}

/** Runs `check`, its `Validation` failure reported as `Configuration`. */
function asConfiguration(check: () => void): void {
  try {
    check();
  } catch (error) {
    throw configurationError(error);
  }
}

/** Creates queue clients from a config object or a URL. */
export const QueueClientFactory = {
  /** A client for the provider the config names, wrapped in the standard client. */
  async createClient(config: QueueConfig | string): Promise<QueueClient> {
    const resolved = typeof config === "string" ? parseQueueUrl(config) : config;
    if (resolved === null || typeof resolved !== "object" || typeof resolved.provider?.type !== "string")
      throw new QueueError(
        "Configuration",
        "a queue config needs provider.type, such as { provider: { type: 'memory' } }",
      );
    const registration = providerOfType(resolved.provider.type);
    if (registration === undefined)
      throw new QueueError(
        "Configuration",
        `unknown provider ${JSON.stringify(resolved.provider.type)}; known: ${registeredProviderTypes().join(", ")}`,
      );
    const clock = clockOf(resolved.provider);
    const clientOptions = {
      ...(resolved.retryPolicy === undefined ? {} : { retryPolicy: resolved.retryPolicy }),
      ...(resolved.timeouts === undefined ? {} : { timeouts: resolved.timeouts }),
      ...(clock === undefined ? {} : { clock }),
      ...(resolved.telemetry === undefined ? {} : { telemetry: resolved.telemetry }),
    };
    // The client's own options are checked before the provider opens anything (a file, a pool).
    asConfiguration(() => checkStandardClientOptions(clientOptions));
    // The optional API is loaded before the client is made, so that its first operation is recorded.
    if (clientOptions.telemetry !== false) await loadOpenTelemetry();
    const factory = await registration.load();
    let provider: QueueProvider;
    try {
      provider = await factory(resolved.provider, {
        createQueues: resolved.createQueues ?? registration.createsQueues,
      });
    } catch (error) {
      throw configurationError(error);
    }
    try {
      return new StandardQueueClient(provider, clientOptions);
    } catch (error) {
      await provider.close().catch(() => undefined);
      throw configurationError(error);
    }
  },

  /** Makes `type` available to `createClient`, for a provider of your own; `<type>:` URLs pass their parameters as strings. */
  registerProvider(type: string, factory: ProviderFactory, options: { createQueues?: boolean } = {}): void {
    registerProvider({
      type,
      schemes: [type],
      createsQueues: options.createQueues ?? false,
      fromUrl: (url) => untypedUrlConfig(type, url),
      load: async () => factory,
    });
  },
};

/** Same as `QueueClientFactory.createClient`. */
export function createClient(config: QueueConfig | string): Promise<QueueClient> {
  return QueueClientFactory.createClient(config);
}
