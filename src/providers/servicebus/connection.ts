import {
  parseServiceBusConnectionString,
  ServiceBusAdministrationClient,
  ServiceBusClient,
  type ServiceBusClientOptions,
} from "@azure/service-bus";
import { QueueError } from "../../core/errors.js";
import type { ServiceBusProviderConfig } from "./config.js";
import type { Redact } from "./errors.js";
import { plainHttpPolicy } from "./plain-http-policy.js";

/** The SDK's token credential type (`@azure/core-auth`'s), read off its constructor. */
type TokenCredential = Extract<ConstructorParameters<typeof ServiceBusClient>[1], { getToken: unknown }>;

/** The official emulator's management port, which a development connection string implies. */
export const EMULATOR_ADMIN_PORT = 5300;

/** The SDK clients of one provider, and how to keep its secrets out of messages. */
export interface ServiceBusConnection {
  readonly client: ServiceBusClient;
  readonly admin: ServiceBusAdministrationClient;
  readonly redact: Redact;
}

/**
 * The SDK does one attempt per call: the standard client retries transient failures, so retries
 * inside the SDK would multiply them (and its default waits 30 s between tries).
 */
function clientOptions(operationTimeoutMs: number): ServiceBusClientOptions {
  return { retryOptions: { maxRetries: 0, timeoutInMs: operationTimeoutMs } };
}

const invalid = (message: string) => new QueueError("Configuration", message);

/** Opens (lazily: nothing is sent yet) the SDK clients a provider config names. */
export function connect(config: ServiceBusProviderConfig, operationTimeoutMs: number): ServiceBusConnection {
  if ("connectionString" in config)
    return fromConnectionString(config.connectionString, config, operationTimeoutMs);
  if (typeof config.fullyQualifiedNamespace !== "string" || config.fullyQualifiedNamespace === "")
    throw invalid("a servicebus config needs connectionString, or fullyQualifiedNamespace with credential");
  if (typeof config.credential?.getToken !== "function")
    throw invalid(
      "a servicebus credential must be a TokenCredential (it has getToken), such as DefaultAzureCredential",
    );
  const credential = config.credential as TokenCredential;
  const options = clientOptions(operationTimeoutMs);
  const client = new ServiceBusClient(config.fullyQualifiedNamespace, credential, options);
  const admin =
    config.administrationEndpoint === undefined
      ? new ServiceBusAdministrationClient(config.fullyQualifiedNamespace, credential, adminOptions())
      : withEndpoint(
          config.administrationEndpoint,
          (host) => new ServiceBusAdministrationClient(host, credential, adminOptions()),
        );
  return { client, admin, redact: (text) => text };
}

function fromConnectionString(
  connectionString: unknown,
  config: ServiceBusProviderConfig,
  operationTimeoutMs: number,
): ServiceBusConnection {
  if (typeof connectionString !== "string" || connectionString.trim() === "")
    throw invalid("a servicebus connectionString must be a non-empty string");
  let parsed: ReturnType<typeof parseServiceBusConnectionString>;
  try {
    parsed = parseServiceBusConnectionString(connectionString);
  } catch {
    // The SDK's message may quote the string, key and all.
    throw invalid(
      "the servicebus connection string is not valid: it needs Endpoint=sb://<namespace>/ and SharedAccessKeyName with SharedAccessKey (or SharedAccessSignature)",
    );
  }
  const secrets = [parsed.sharedAccessKey, parsed.sharedAccessSignature].filter(
    (secret): secret is string => typeof secret === "string" && secret.length > 0,
  );
  const redact: Redact = (text) =>
    secrets.reduce((redacted, secret) => redacted.split(secret).join("***"), text);
  if (parsed.entityPath !== undefined)
    throw invalid(
      "the servicebus connection string names an entity (EntityPath); give the namespace's instead, queues are named per call",
    );
  let client: ServiceBusClient;
  try {
    client = new ServiceBusClient(connectionString, clientOptions(operationTimeoutMs));
  } catch (error) {
    throw invalid(
      `the servicebus connection string is not valid: ${redact(String((error as Error).message))}`,
    );
  }
  const emulator = /(^|;)\s*UseDevelopmentEmulator\s*=\s*true\s*(;|$)/i.test(connectionString);
  const endpoint =
    config.administrationEndpoint ??
    (emulator ? `http://${new URL(parsed.endpoint).hostname}:${EMULATOR_ADMIN_PORT}` : undefined);
  const admin =
    endpoint === undefined
      ? new ServiceBusAdministrationClient(connectionString, adminOptions())
      : withEndpoint(
          endpoint,
          (host) =>
            new ServiceBusAdministrationClient(
              connectionString.replace(/Endpoint\s*=\s*[^;]*/i, `Endpoint=sb://${host}/`),
              adminOptions(),
            ),
        );
  return { client, admin, redact };
}

/** Admin clients do one attempt per call too. */
function adminOptions() {
  return { retryOptions: { maxRetries: 0 } };
}

/** An admin client for `endpoint` (`http://host:port` or `https://host`), over plain HTTP when it says so. */
function withEndpoint(
  endpoint: string,
  make: (host: string) => ServiceBusAdministrationClient,
): ServiceBusAdministrationClient {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw invalid(
      `administrationEndpoint ${JSON.stringify(endpoint)} is not a URL such as http://127.0.0.1:5300`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw invalid(`administrationEndpoint must be http:// or https://, not ${url.protocol}`);
  const plain = url.protocol === "http:";
  const admin = make(url.host);
  if (plain) admin.pipeline.addPolicy(plainHttpPolicy(), { phase: "Serialize" });
  return admin;
}
