import type { PgPool } from "../postgres/pg-pool.js";
import type { EngineProviderOptions } from "../rules/queue-defaults.js";
import { QueueError } from "./errors.js";
import type { RetryPolicy } from "./retry.js";

/** The in-process provider: queues live in this process's memory. */
export interface MemoryProviderConfig extends EngineProviderOptions {
  type: "memory";
  /** Clients created with the same name in one process share their queues; without one each client has its own. */
  name?: string;
}

/** The embedded durable provider: queues live in one SQLite file. */
export interface SqliteProviderConfig extends EngineProviderOptions {
  type: "sqlite";
  /** The database file; created with its schema when missing. */
  path: string;
  /** `NORMAL` (default) survives a process crash; `FULL` also survives power loss, at a cost per commit. */
  synchronous?: "NORMAL" | "FULL";
}

/** PostgreSQL: queues in tables of one schema, shared by every process that uses the database. */
export interface PostgresProviderConfig extends EngineProviderOptions {
  type: "postgres";
  /** `postgres://user:password@host:5432/database`; one of this or `pool`. */
  connectionString?: string;
  /** A `pg.Pool` the application already has; it stays open when the client closes. */
  pool?: PgPool;
  /** The schema the tables live in (default `queue_runtime`), created on first use. */
  schema?: string;
  /**
   * How often one of the processes sharing the schema vacuums the tables that dead rows piled up
   * in (default 10 000); 0 leaves it to the server's autovacuum.
   */
  vacuumIntervalMs?: number;
}

/** AWS credentials. */
export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** When temporary credentials stop working; they are fetched again before then. */
  expiration?: Date;
}

/** Amazon SQS, or any service speaking its JSON protocol (such as `queue-runtime serve`). */
export interface SqsProviderConfig {
  type: "sqs";
  region?: string;
  /** `http(s)://host:port`; by default AWS's endpoint for the region. */
  endpoint?: string;
  credentials?: AwsCredentials | (() => Promise<AwsCredentials>);
  accountId?: string;
}

/** A source of Azure AD tokens, as `@azure/identity`'s credentials are (`DefaultAzureCredential`, ...). */
export interface ServiceBusTokenCredential {
  getToken(
    scopes: string | string[],
    options?: { abortSignal?: AbortSignal },
  ): Promise<{ token: string; expiresOnTimestamp: number } | null>;
}

/** What every Service Bus config may add to its connection. */
interface ServiceBusCommonConfig {
  type: "servicebus";
  /**
   * The management (ATOM) endpoint the admin calls go to, such as `http://127.0.0.1:5300`. By
   * default the namespace itself over HTTPS, or for a connection string with
   * `UseDevelopmentEmulator=true` its host on port 5300 over plain HTTP, as the official emulator serves it.
   */
  administrationEndpoint?: string;
}

/** Azure Service Bus (or `queue-runtime serve --servicebus`, or the official emulator) by connection string. */
export interface ServiceBusConnectionStringConfig extends ServiceBusCommonConfig {
  /** `Endpoint=sb://<namespace>/;SharedAccessKeyName=...;SharedAccessKey=...`; never shown in errors or logs. */
  connectionString: string;
}

/** Azure Service Bus through Azure AD: a namespace and a token credential. */
export interface ServiceBusCredentialConfig extends ServiceBusCommonConfig {
  /** `<namespace>.servicebus.windows.net`. */
  fullyQualifiedNamespace: string;
  credential: ServiceBusTokenCredential;
}

/** Azure Service Bus. */
export type ServiceBusProviderConfig = ServiceBusConnectionStringConfig | ServiceBusCredentialConfig;

/** A provider of your own, registered with `QueueClientFactory.registerProvider`. */
export interface CustomProviderConfig {
  type: string;
  [option: string]: unknown;
}

/** Which provider a client uses, and its options. */
export type ProviderConfig =
  | MemoryProviderConfig
  | SqliteProviderConfig
  | PostgresProviderConfig
  | SqsProviderConfig
  | ServiceBusProviderConfig
  | CustomProviderConfig;

/** Everything `createClient` needs. */
export interface QueueConfig {
  provider: ProviderConfig;
  /** How transient failures are repeated (default: 3 attempts, 100 ms doubling to 10 s, jitter). */
  retryPolicy?: Partial<RetryPolicy>;
  /** The most one call may take, receive waits excluded (default 30 000). */
  timeouts?: { operationMs?: number };
  /** Create a queue on first use (default true for memory and sqlite, false for cloud providers). */
  createQueues?: boolean;
}

const NUMBER_OPTIONS = new Set([
  "lockDurationMs",
  "maxDeliveryCount",
  "sessionLockDurationMs",
  "defaultTimeToLiveMs",
  "deduplicationWindowMs",
  "maxMessageBytes",
  "operationMs",
]);
const STRING_OPTIONS = new Set(["region", "accountId", "synchronous", "name"]);
const BOOLEAN_OPTIONS = new Set(["createQueues"]);
/** Number options that only the postgres URL takes. */
const POSTGRES_NUMBER_OPTIONS = new Set(["vacuumIntervalMs"]);

function queryValue(
  key: string,
  value: string,
  numberOptions: ReadonlySet<string> = NUMBER_OPTIONS,
): number | string | boolean | null {
  if (numberOptions.has(key)) {
    if (value === "null" || value === "none") return null;
    const number = Number(value);
    if (value.trim() === "" || !Number.isFinite(number))
      throw new QueueError(
        "Configuration",
        `URL option ${key} must be a number, not ${JSON.stringify(value)}`,
      );
    return number;
  }
  if (BOOLEAN_OPTIONS.has(key)) {
    if (value === "true" || value === "1") return true;
    if (value === "false" || value === "0") return false;
    throw new QueueError("Configuration", `URL option ${key} must be true or false`);
  }
  if (STRING_OPTIONS.has(key)) return value;
  throw new QueueError("Configuration", `unknown URL option ${JSON.stringify(key)}`);
}

/**
 * A config from the URL form: `memory:`, `memory:<name>`, `sqlite:<path>`, `sqs://host:port`
 * (`sqss://` for TLS), `sqs:` for AWS itself, `servicebus:<connection string>`,
 * `postgres://user@host:5432/db` (also `postgresql://`, `?schema=`); query parameters
 * set options (`sqlite:./q.db?lockDurationMs=500`).
 */
export function parseQueueUrl(url: string): QueueConfig {
  if (typeof url !== "string" || url.trim() === "")
    throw new QueueError(
      "Configuration",
      "a queue URL must be a non-empty string such as memory: or sqlite:./queues.db",
    );
  const colon = url.indexOf(":");
  if (colon <= 0)
    throw new QueueError("Configuration", "a queue URL starts with its provider, such as memory: or sqlite:");
  const scheme = url.slice(0, colon).toLowerCase();
  const rest = url.slice(colon + 1);
  if (scheme === "servicebus") return { provider: { type: "servicebus", connectionString: rest } };
  if (scheme === "postgres" || scheme === "postgresql") return postgresUrl(url);
  const question = rest.indexOf("?");
  const location = question < 0 ? rest : rest.slice(0, question);
  const options: Record<string, number | string | boolean | null> = {};
  if (question >= 0)
    for (const [key, value] of new URLSearchParams(rest.slice(question + 1)))
      options[key] = queryValue(key, value);
  const { operationMs, createQueues, ...providerOptions } = options;
  const config: QueueConfig = { provider: providerFor(scheme, location, providerOptions) };
  if (typeof operationMs === "number") config.timeouts = { operationMs };
  if (typeof createQueues === "boolean") config.createQueues = createQueues;
  return config;
}

/**
 * A postgres URL: queue-runtime's options (`schema`, the engine options, `createQueues`,
 * `operationMs`) are taken out of the query, and the rest (`sslmode`, `application_name`, ...)
 * stays in the connection string for node-postgres.
 */
function postgresUrl(url: string): QueueConfig {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new QueueError("Configuration", "a postgres URL looks like postgres://user@host:5432/database");
  }
  const options: Record<string, number | string | boolean | null> = {};
  let schema: string | undefined;
  for (const [key, value] of [...parsed.searchParams]) {
    if (key === "schema") schema = value;
    else if (POSTGRES_NUMBER_OPTIONS.has(key)) options[key] = queryValue(key, value, POSTGRES_NUMBER_OPTIONS);
    else if (NUMBER_OPTIONS.has(key) || BOOLEAN_OPTIONS.has(key)) options[key] = queryValue(key, value);
    else continue;
    parsed.searchParams.delete(key);
  }
  const { operationMs, createQueues, ...engineOptions } = options;
  const config: QueueConfig = {
    provider: {
      type: "postgres",
      ...engineOptions,
      connectionString: parsed.toString(),
      ...(schema === undefined ? {} : { schema }),
    } as PostgresProviderConfig,
  };
  if (typeof operationMs === "number") config.timeouts = { operationMs };
  if (typeof createQueues === "boolean") config.createQueues = createQueues;
  return config;
}

function providerFor(
  scheme: string,
  location: string,
  options: Record<string, number | string | boolean | null>,
): ProviderConfig {
  switch (scheme) {
    case "memory":
      return {
        type: "memory",
        ...options,
        ...(location === "" ? {} : { name: decodeURIComponent(location) }),
      };
    case "sqlite":
      if (location === "")
        throw new QueueError("Configuration", "sqlite: needs a file path, as in sqlite:./queues.db");
      return { type: "sqlite", ...options, path: decodeURIComponent(location) } as SqliteProviderConfig;
    case "sqs":
    case "sqss": {
      if (location === "") return { type: "sqs", ...options };
      const host = location.replace(/^\/\//, "");
      if (host === "" || host.includes("/") || host.includes("@"))
        throw new QueueError(
          "Configuration",
          "an sqs URL names a host and port only, as in sqs://127.0.0.1:9324",
        );
      return { type: "sqs", ...options, endpoint: `${scheme === "sqss" ? "https" : "http"}://${host}` };
    }
    default:
      return { type: scheme, ...options };
  }
}
