import {
  ServiceBusAdministrationClient,
  type ServiceBusAdministrationClientOptions,
} from "@azure/service-bus";
import { plainHttpPolicy } from "../../../src/providers/servicebus/plain-http-policy.js";
import type { SasKey } from "../../../src/server/servicebus/sas.js";

/** The connection string the official emulator documents for its admin port, pointed at `endpoint`. */
export function adminConnectionString(endpoint: string, key: SasKey): string {
  const host = new URL(endpoint).host;
  return `Endpoint=sb://${host};SharedAccessKeyName=${key.keyName};SharedAccessKey=${key.key};UseDevelopmentEmulator=true;`;
}

/**
 * A `ServiceBusAdministrationClient` for a server at `endpoint` (`http://127.0.0.1:5300`): the
 * emulator connection string with the admin port, and plain HTTP. No retries unless
 * `options` asks, so a failure shows at once.
 */
export function adminClientFor(
  endpoint: string,
  key: SasKey,
  options: ServiceBusAdministrationClientOptions = {},
): ServiceBusAdministrationClient {
  const client = new ServiceBusAdministrationClient(adminConnectionString(endpoint, key), {
    retryOptions: { maxRetries: 0 },
    ...options,
  });
  client.pipeline.addPolicy(plainHttpPolicy(), { phase: "Serialize" });
  return client;
}

/** The members the official sample reaches into: private in the SDK's types, there at run time. */
interface SampleInternals {
  _httpClient: { sendRequest(request: { allowInsecureConnection?: boolean }): Promise<unknown> };
  serviceVersion?: string;
  getUrl(path: string, queryParams?: Record<string, string>): string;
}

/**
 * A client set up exactly as the official emulator's JS sample does it
 * (Azure/azure-service-bus-emulator-installer, Sample-Code-Snippets/JS/.../sample-send-receive.js):
 * `getUrl` replaced to build `http://host:port/...` URLs, and the HTTP client's `sendRequest`
 * wrapped to allow plain HTTP. Users copy this; the server must work with it.
 */
export function sampleStyleAdminClient(endpoint: string, key: SasKey): ServiceBusAdministrationClient {
  const client = new ServiceBusAdministrationClient(adminConnectionString(endpoint, key), {
    retryOptions: { maxRetries: 0 },
  });
  const internals = client as unknown as SampleInternals;
  const http = internals._httpClient;
  const originalSendRequest = http.sendRequest.bind(http);
  http.sendRequest = (request) => {
    request.allowInsecureConnection = true;
    return originalSendRequest(request);
  };
  const base = new URL(endpoint);
  internals.getUrl = function getUrl(path, queryParams) {
    const url = new URL(`http://${base.host}/${path}`);
    url.searchParams.set("api-version", this.serviceVersion || "2021-05");
    for (const [name, value] of Object.entries(queryParams ?? {})) url.searchParams.set(name, value);
    return url.toString();
  };
  return client;
}

/** What the SDK's RestError carries (core-rest-pipeline's class, not exported by the SDK). */
export interface RestError extends Error {
  readonly code?: string;
  readonly statusCode?: number;
}

/** The RestError a call fails with; anything else, or no failure, fails the test. */
export async function restError(call: () => Promise<unknown>): Promise<RestError> {
  try {
    await call();
  } catch (error) {
    if (error instanceof Error && error.name === "RestError") return error as RestError;
    throw error;
  }
  throw new Error("expected the call to fail");
}
