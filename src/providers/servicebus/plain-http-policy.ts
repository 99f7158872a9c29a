import type { ServiceBusAdministrationClient } from "@azure/service-bus";

/** A pipeline policy, as the admin client's pipeline takes it (typed from the SDK, whose core packages are not ours). */
export type PipelinePolicy = Parameters<ServiceBusAdministrationClient["pipeline"]["addPolicy"]>[0];

/**
 * A policy that sends the admin client's requests over plain HTTP. SDK 7.9 always builds
 * `https://<namespace>/<path>` URLs and its HTTP client refuses `http://` unless a request
 * allows it: this does what the official emulator's JS sample does (its `getUrl` override and
 * `allowInsecureConnection`), through the public pipeline instead of private members. Added in
 * the Serialize phase, it runs before the signing policy, so the SAS token signs the URL sent.
 */
export function plainHttpPolicy(): PipelinePolicy {
  return {
    name: "queueRuntimePlainHttp",
    sendRequest(request, next) {
      if (request.url.startsWith("https://")) request.url = `http://${request.url.slice("https://".length)}`;
      request.allowInsecureConnection = true;
      return next(request);
    },
  };
}
