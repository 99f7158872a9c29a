import "../providers/built-in.js";
import { QueueError } from "../core/errors.js";
import { createClient } from "../core/factory.js";
import type { QueueClient } from "../core/queue-client.js";
import { parseQueueUrl } from "../core/queue-url.js";

/** The environment variable naming the provider when `--url` is not given. */
export const QUEUE_URL_ENV = "QUEUE_URL";

/** The provider URL an operator command works on: `--url` wins over `$QUEUE_URL`. */
export function operatorUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const url = flag ?? env[QUEUE_URL_ENV];
  if (url === undefined || url.trim() === "")
    throw new QueueError(
      "Configuration",
      `name the provider with --url <provider-url> or $${QUEUE_URL_ENV} (sqlite:./queues.db, postgres://..., sqs://127.0.0.1:9324, servicebus:<connection string>)`,
    );
  return url;
}

/**
 * Opens a client for an operator: one that never creates a queue by naming it (a typo must be an
 * unknown queue, not a new one), and never on `memory:`, which would be a new, empty engine.
 */
export async function openOperatorClient(url: string): Promise<QueueClient> {
  const config = parseQueueUrl(url);
  if (config.provider.type === "memory")
    throw new QueueError(
      "Configuration",
      "memory: would be a new, empty queue engine in this process; give the URL of a store that outlives it (sqlite:<path>, postgres://..., sqs://..., servicebus:...)",
    );
  return createClient({ ...config, createQueues: false });
}
