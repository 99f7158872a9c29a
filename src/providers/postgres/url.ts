import type { QueueConfig } from "../../core/config.js";
import { QueueError } from "../../core/errors.js";
import { readUrlQuery } from "../../core/queue-url.js";
import { QUEUE_OPTION_NAMES } from "../../rules/queue-defaults.js";
import type { PostgresProviderConfig } from "./config.js";

/**
 * `postgres://user@host:5432/database` (also `postgresql://`): queue-runtime's options (`schema`,
 * `vacuumIntervalMs`, the queue options, `createQueues`, `operationMs`) are taken out of the
 * query, and the rest (`sslmode`, `application_name`, ...) stays in the connection string for node-postgres.
 */
export function fromPostgresUrl(url: string): QueueConfig {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new QueueError("Configuration", "a postgres URL looks like postgres://user@host:5432/database");
  }
  const { options, client } = readUrlQuery(
    parsed.searchParams,
    { numbers: [...QUEUE_OPTION_NAMES.numbers, "vacuumIntervalMs"], strings: ["schema"] },
    { keepOthers: true },
  );
  const provider = {
    type: "postgres",
    ...options,
    connectionString: parsed.toString(),
  } as PostgresProviderConfig;
  return { provider, ...client };
}
