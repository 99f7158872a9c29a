import "../providers/built-in.js";
import { QueueError } from "../core/errors.js";
import { createClient } from "../core/factory.js";
import { providerOfType, registeredProviderTypes } from "../core/provider-registry.js";
import type { QueueClient } from "../core/queue-client.js";
import { parseQueueUrl } from "../core/queue-url.js";
import { UsageError } from "./arguments.js";

/** The environment variable naming the provider when `--url` is not given. */
export const QUEUE_URL_ENV = "QUEUE_URL";

/** The provider URL an operator command works on: `--url` wins over `$QUEUE_URL`. */
export function operatorUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const url = flag ?? env[QUEUE_URL_ENV];
  if (url === undefined || url.trim() === "")
    throw new UsageError(
      `name the provider with --url <provider-url> or $${QUEUE_URL_ENV} (sqlite:./queues.db, postgres://..., sqs://127.0.0.1:9324, servicebus:<connection string>)`,
    );
  return url;
}

/**
 * Opens a client for an operator: one that never creates a queue by naming it (a typo must be an
 * unknown queue, not a new one), and never on `memory:`, which would be a new, empty engine.
 */
export async function openOperatorClient(url: string): Promise<QueueClient> {
  return createClient({ ...operatorConfig(url), createQueues: false });
}

/**
 * The client configuration `url` names; a URL that cannot be used is a {@link UsageError}, while
 * a store it names that cannot be opened or reached fails later, in `createClient` (exit 1).
 */
function operatorConfig(url: string): ReturnType<typeof parseQueueUrl> {
  let config: ReturnType<typeof parseQueueUrl>;
  try {
    config = parseQueueUrl(url);
  } catch (error) {
    throw QueueError.is(error, "Configuration") ? new UsageError(error.message) : error;
  }
  if (providerOfType(config.provider.type) === undefined)
    throw new UsageError(
      `unknown provider ${JSON.stringify(config.provider.type)}; known: ${registeredProviderTypes().join(", ")}`,
    );
  if (config.provider.type === "memory")
    throw new UsageError(
      "memory: would be a new, empty queue engine in this process; give the URL of a store that outlives it (sqlite:<path>, postgres://..., sqs://..., servicebus:...)",
    );
  return config;
}
