import type { QueueConfig } from "../../core/config.js";
import { QueueError } from "../../core/errors.js";
import { readUrlQuery } from "../../core/queue-url.js";
import { QUEUE_OPTION_NAMES } from "../../rules/queue-defaults.js";
import type { RabbitMqProviderConfig } from "./config.js";

/**
 * `amqp://user:password@host:5672/vhost` (also `amqps://`): queue-runtime's options (`queuePrefix`,
 * `prefetch`, `queueType`, the queue options, `createQueues`, `operationMs`) are taken out of the
 * query, and the rest (`heartbeat`, `frameMax`, ...) stays in the URL for amqplib.
 */
export function fromRabbitMqUrl(url: string): QueueConfig {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new QueueError("Configuration", "a rabbitmq URL looks like amqp://user:password@host:5672/vhost");
  }
  if (parsed.protocol !== "amqp:" && parsed.protocol !== "amqps:")
    throw new QueueError(
      "Configuration",
      `a rabbitmq URL starts with amqp:// or amqps://, not ${parsed.protocol}//`,
    );
  if (parsed.hostname === "")
    throw new QueueError("Configuration", "a rabbitmq URL names a host, as in amqp://127.0.0.1:5672/%2F");
  const { options, client } = readUrlQuery(
    parsed.searchParams,
    { numbers: [...QUEUE_OPTION_NAMES.numbers, "prefetch"], strings: ["queuePrefix", "queueType"] },
    { keepOthers: true },
  );
  const provider = { type: "rabbitmq", ...options, url: parsed.toString() } as RabbitMqProviderConfig;
  return { provider, ...client };
}
