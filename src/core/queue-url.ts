import type { QueueConfig } from "./config.js";
import { QueueError } from "./errors.js";
import { providerOfScheme } from "./provider-registry.js";

/** A URL query parameter read as an option. */
export type UrlOptionValue = number | string | boolean | null;

/** The query parameters a provider's URL takes, by kind; a number may also be `null` or `none`. */
export interface UrlOptionNames {
  readonly numbers?: readonly string[];
  readonly strings?: readonly string[];
  readonly booleans?: readonly string[];
}

/** A queue URL cut at its first `:` and its first `?`. */
export interface UrlParts {
  /** Lowercase, before the first `:`. */
  readonly scheme: string;
  /** Between the `:` and the `?`. */
  readonly location: string;
  readonly query: URLSearchParams;
}

/** What a URL's query sets: the provider's options and the client's own (`operationMs`, `createQueues`). */
export interface UrlQuery {
  readonly options: Record<string, UrlOptionValue>;
  readonly client: Omit<QueueConfig, "provider">;
}

/** The client's own query parameters, which every URL takes. */
const CLIENT_OPTIONS: UrlOptionNames = { numbers: ["operationMs"], booleans: ["createQueues"] };

/** Cuts a queue URL into scheme, location and query; a URL without a scheme is a `Configuration` error. */
export function splitQueueUrl(url: string): UrlParts {
  if (typeof url !== "string" || url.trim() === "")
    throw new QueueError(
      "Configuration",
      "a queue URL must be a non-empty string such as memory: or sqlite:./queues.db",
    );
  const colon = url.indexOf(":");
  if (colon <= 0)
    throw new QueueError("Configuration", "a queue URL starts with its provider, such as memory: or sqlite:");
  const rest = url.slice(colon + 1);
  const question = rest.indexOf("?");
  return {
    scheme: url.slice(0, colon).toLowerCase(),
    location: question < 0 ? rest : rest.slice(0, question),
    query: new URLSearchParams(question < 0 ? "" : rest.slice(question + 1)),
  };
}

function kindOf(names: UrlOptionNames, key: string): "number" | "string" | "boolean" | undefined {
  if (names.numbers?.includes(key)) return "number";
  if (names.strings?.includes(key)) return "string";
  if (names.booleans?.includes(key)) return "boolean";
  return undefined;
}

function readValue(kind: "number" | "string" | "boolean", key: string, value: string): UrlOptionValue {
  if (kind === "string") return value;
  if (kind === "boolean") {
    if (value === "true" || value === "1") return true;
    if (value === "false" || value === "0") return false;
    throw new QueueError("Configuration", `URL option ${key} must be true or false`);
  }
  if (value === "null" || value === "none") return null;
  const number = Number(value);
  if (value.trim() === "" || !Number.isFinite(number))
    throw new QueueError("Configuration", `URL option ${key} must be a number, not ${JSON.stringify(value)}`);
  return number;
}

/**
 * Reads a URL's query: the client's options and the provider's `names`, each checked. Another
 * parameter is a `Configuration` error, unless `keepOthers`, when it stays in `query` (which
 * loses every parameter read).
 */
export function readUrlQuery(
  query: URLSearchParams,
  names: UrlOptionNames,
  { keepOthers = false }: { keepOthers?: boolean } = {},
): UrlQuery {
  const options: Record<string, UrlOptionValue> = {};
  const client: { timeouts?: { operationMs: number }; createQueues?: boolean } = {};
  for (const [key, value] of [...query]) {
    const clientKind = kindOf(CLIENT_OPTIONS, key);
    const kind = clientKind ?? kindOf(names, key);
    if (kind === undefined) {
      if (keepOthers) continue;
      throw new QueueError("Configuration", `unknown URL option ${JSON.stringify(key)}`);
    }
    const read = readValue(kind, key, value);
    if (key === "operationMs" && typeof read === "number") client.timeouts = { operationMs: read };
    else if (key === "createQueues" && typeof read === "boolean") client.createQueues = read;
    else if (clientKind === undefined) options[key] = read;
    query.delete(key);
  }
  return { options, client };
}

/**
 * A config from the URL form, read by the provider its scheme names: `memory:`, `sqlite:<path>`,
 * `postgres://...`, `sqs://host:port`, `servicebus:<connection string>`, `amqp://...`, `nats://...`;
 * query parameters set options (`sqlite:./q.db?lockDurationMs=500`). A scheme no provider
 * registered is read as `{ type: <scheme> }` with its parameters as strings, for a provider of your own.
 */
export function parseQueueUrl(url: string): QueueConfig {
  const parts = splitQueueUrl(url);
  const definition = providerOfScheme(parts.scheme);
  if (definition !== undefined) return definition.fromUrl(url);
  return untypedUrlConfig(parts.scheme, url);
}

/** The config of a URL for a provider that reads no options of its own: `{ type }` with every parameter as a string. */
export function untypedUrlConfig(type: string, url: string): QueueConfig {
  const { query } = splitQueueUrl(url);
  const { client } = readUrlQuery(query, {}, { keepOthers: true });
  return { provider: { type, ...Object.fromEntries(query) }, ...client };
}
