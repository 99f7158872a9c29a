/** The port a provider URL's scheme implies when it names none. */
const DEFAULT_PORTS: Readonly<Record<string, number>> = {
  "http:": 80,
  "https:": 443,
  "amqp:": 5672,
  "amqps:": 5671,
  "sb:": 5671,
  "nats:": 4222,
  "tls:": 4222,
  "postgres:": 5432,
  "postgresql:": 5432,
};

/** The `server.address` and `server.port` of a provider's URL, for its telemetry; nothing for a URL that cannot be read. */
export function serverOf(url: string | undefined): { serverAddress?: string; serverPort?: number } {
  if (url === undefined) return {};
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {};
  }
  // Only the host and port: a URL's user, password and query may hold secrets.
  const serverAddress = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  if (serverAddress === "") return {};
  const serverPort = parsed.port === "" ? DEFAULT_PORTS[parsed.protocol] : Number(parsed.port);
  return serverPort === undefined ? { serverAddress } : { serverAddress, serverPort };
}
