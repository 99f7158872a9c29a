import { QueueError } from "../../../core/errors.js";
import { checkSasToken, parseSasToken, type SasKey } from "../sas.js";

/**
 * The host a token names, so that only its path is compared with the request's. A local server
 * is reached under many names (localhost, 127.0.0.1, a container's name, or the namespace of
 * the connection string when a client rewrites its URLs after signing): the key and the entity
 * are what a token proves here.
 */
function tokenHost(resource: string): string {
  const withoutScheme = resource.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
  const end = withoutScheme.search(/[/?]/);
  return end < 0 ? withoutScheme : withoutScheme.slice(0, end);
}

/**
 * Throws `Authentication` unless `token` (an `Authorization` header) is a SAS token signed with
 * `key`, unexpired, for `path` or a path above it. The SDK signs the whole request URL, query
 * included (`.../orders?api-version=2021-05`): such a token is compared with the path and query
 * of the request, a token without a query with its path alone.
 */
export function authorizeRequest(
  token: string | undefined,
  key: SasKey,
  path: string,
  query: string,
  nowMs: number,
): void {
  if (token === undefined || token === "")
    throw new QueueError("Authentication", "MissingToken: the Authorization header was not found");
  const parsed = parseSasToken(token);
  const signedQuery = parsed?.resource.includes("?") === true && query !== "";
  const audience = `${parsed === undefined ? "" : tokenHost(parsed.resource)}${path}${signedQuery ? `?${query}` : ""}`;
  const refusal = checkSasToken(token, key, audience, nowMs);
  if (refusal !== undefined) throw new QueueError("Authentication", `InvalidSignature: ${refusal}`);
}

/**
 * Throws `Authentication` unless a supplementary token (`ServiceBusSupplementaryAuthorization`,
 * sent with a `ForwardTo`) grants the forwarding target `target`, an entity URL
 * (`sb://host/other`) or a bare name.
 */
export function authorizeForwarding(token: string, key: SasKey, target: string, nowMs: number): void {
  const parsed = parseSasToken(token);
  const withoutHost = /^[a-z][a-z0-9+.-]*:\/\//i.test(target)
    ? target.slice(target.indexOf("//") + 2 + tokenHost(target).length)
    : `/${target}`;
  const audience = `${parsed === undefined ? "" : tokenHost(parsed.resource)}${withoutHost}`;
  const refusal = checkSasToken(token, key, audience, nowMs);
  if (refusal !== undefined)
    throw new QueueError(
      "Authentication",
      `InvalidSignature: the token for forwarding to ${target}: ${refusal}`,
    );
}
