import type { QueueConfig } from "../../core/config.js";
import { QueueError } from "../../core/errors.js";
import { readUrlQuery, splitQueueUrl } from "../../core/queue-url.js";

/** `sqs://host:port` (`sqss://` for TLS), or `sqs:` for AWS itself, with `region` and `accountId`. */
export function fromSqsUrl(url: string): QueueConfig {
  const { scheme, location, query } = splitQueueUrl(url);
  const { options, client } = readUrlQuery(query, { strings: ["region", "accountId"] });
  if (location === "") return { provider: { type: "sqs", ...options }, ...client };
  const host = location.replace(/^\/\//, "");
  if (host === "" || host.includes("/") || host.includes("@"))
    throw new QueueError(
      "Configuration",
      "an sqs URL names a host and port only, as in sqs://127.0.0.1:9324",
    );
  return {
    provider: { type: "sqs", ...options, endpoint: `${scheme === "sqss" ? "https" : "http"}://${host}` },
    ...client,
  };
}
