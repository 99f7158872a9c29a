import type { QueueConfig } from "../../core/config.js";
import { QueueError } from "../../core/errors.js";
import { readUrlQuery, splitQueueUrl } from "../../core/queue-url.js";
import { QUEUE_OPTION_NAMES } from "../../rules/queue-defaults.js";
import type { SqliteProviderConfig } from "./config.js";

/** `sqlite:<path>`, with queue options and `synchronous`. */
export function fromSqliteUrl(url: string): QueueConfig {
  const { location, query } = splitQueueUrl(url);
  if (location === "")
    throw new QueueError("Configuration", "sqlite: needs a file path, as in sqlite:./queues.db");
  const { options, client } = readUrlQuery(query, { ...QUEUE_OPTION_NAMES, strings: ["synchronous"] });
  const provider = { type: "sqlite", ...options, path: decodeURIComponent(location) } as SqliteProviderConfig;
  return { provider, ...client };
}
