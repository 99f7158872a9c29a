import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Resolves once `server` listens on `host`:`port`; rejects with the listen error (EADDRINUSE, ...). */
export function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** `http://host:port` where a listening server is reached. */
export function endpointOf(server: Server): string {
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

/** The port a listening server listens on. */
export function portOf(server: Server): number {
  return (server.address() as AddressInfo).port;
}
