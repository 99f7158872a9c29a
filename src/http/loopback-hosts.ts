import type { IncomingMessage } from "node:http";

/** Host names and addresses that reach this machine only. */
const LOOPBACK_HOSTS = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i;

/** Whether a host name or listen address reaches this machine only. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.test(host);
}

/**
 * Whether a request is addressed (its `Host` header) to a loopback name: a page of another site
 * that rebinds its DNS name to 127.0.0.1 still sends its own name, so it fails this.
 */
export function addressedToLoopback(req: IncomingMessage): boolean {
  const name = hostNameOf(req.headers.host);
  return name !== undefined && isLoopbackHost(name);
}

/** The host name in a `Host` header (`127.0.0.1:9330` → `127.0.0.1`, `[::1]:9330` → `[::1]`). */
function hostNameOf(host: string | undefined): string | undefined {
  if (host === undefined) return undefined;
  const match = /^(\[[^\]]*\]|[^:]*)(:\d+)?$/.exec(host);
  return match?.[1];
}
