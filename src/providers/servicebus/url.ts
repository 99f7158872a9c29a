import type { QueueConfig } from "../../core/config.js";

/** `servicebus:<connection string>`: everything after the scheme is the connection string. */
export function fromServiceBusUrl(url: string): QueueConfig {
  return { provider: { type: "servicebus", connectionString: url.slice(url.indexOf(":") + 1) } };
}
