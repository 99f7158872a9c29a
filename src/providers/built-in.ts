// The providers queue-runtime ships, each registering itself; their code loads on first use.
import "./memory/index.js";
import "./sqlite/index.js";
import "./postgres/index.js";
import "./sqs/index.js";
import "./servicebus/index.js";
import "./rabbitmq/index.js";
import "./nats/index.js";

/** The providers queue-runtime ships; a provider of your own may use any other name. */
export const PROVIDER_TYPES = [
  "memory",
  "sqlite",
  "postgres",
  "sqs",
  "servicebus",
  "rabbitmq",
  "nats",
] as const;
