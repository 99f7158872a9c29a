import type { QueueConfig } from "../../core/config.js";
import { QueueError } from "../../core/errors.js";
import { readUrlQuery } from "../../core/queue-url.js";
import { QUEUE_OPTION_NAMES } from "../../rules/queue-defaults.js";
import type { NatsProviderConfig } from "./config.js";

/**
 * `nats://[user:pass@]host:4222?streamPrefix=app&lockDurationMs=5000` (or `tls://...`, or a
 * token as `nats://token@host`): the server, its credentials and queue-runtime's options; any
 * other query parameter is a `Configuration` error.
 */
export function fromNatsUrl(url: string): QueueConfig {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new QueueError("Configuration", "a nats URL looks like nats://host:4222 or tls://host:4222");
  }
  const scheme = parsed.protocol.slice(0, -1).toLowerCase();
  if (scheme !== "nats" && scheme !== "tls")
    throw new QueueError("Configuration", `a nats URL starts with nats:// or tls://, not ${scheme}:`);
  if (parsed.hostname === "")
    throw new QueueError("Configuration", "a nats URL names its server: nats://host:4222");
  if (parsed.pathname !== "" && parsed.pathname !== "/")
    throw new QueueError("Configuration", `a nats URL has no path, but this one has ${parsed.pathname}`);
  const { options, client } = readUrlQuery(parsed.searchParams, {
    numbers: QUEUE_OPTION_NAMES.numbers,
    strings: ["streamPrefix"],
  });
  const user = decodeURIComponent(parsed.username);
  const pass = decodeURIComponent(parsed.password);
  const provider: NatsProviderConfig = {
    type: "nats",
    ...(options as Partial<NatsProviderConfig>),
    servers: `${scheme}://${parsed.host}`,
    ...(user !== "" && pass !== "" ? { user, pass } : {}),
    ...(user !== "" && pass === "" ? { token: user } : {}),
    ...(scheme === "tls" ? { tls: true as const } : {}),
  };
  return { provider, ...client };
}
