/** The `server.address` and `server.port` of a provider's URL, for its telemetry; nothing for a URL that cannot be read. */
export function serverOf(
  url: string | undefined,
  defaultPort?: number,
): { serverAddress?: string; serverPort?: number } {
  if (url === undefined) return {};
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {};
  }
  // Only the host and port: a URL's user, password and query may hold secrets.
  const port = parsed.port === "" ? defaultPort : Number(parsed.port);
  const serverAddress = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  if (serverAddress === "") return {};
  return port === undefined ? { serverAddress } : { serverAddress, serverPort: port };
}
