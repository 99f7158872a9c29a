import type { QueueConfig } from "../../core/config.js";
import { readUrlQuery, splitQueueUrl } from "../../core/queue-url.js";
import { QUEUE_OPTION_NAMES } from "../../rules/queue-defaults.js";

/** `memory:` (a client's own queues) or `memory:<name>` (shared by name in this process), with queue options. */
export function fromMemoryUrl(url: string): QueueConfig {
  const { location, query } = splitQueueUrl(url);
  const { options, client } = readUrlQuery(query, { ...QUEUE_OPTION_NAMES, strings: ["name"] });
  return {
    provider: {
      type: "memory",
      ...options,
      ...(location === "" ? {} : { name: decodeURIComponent(location) }),
    },
    ...client,
  };
}
