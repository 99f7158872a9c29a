// A TCP proxy in front of the Service Bus endpoint, so a test can count the provider's
// connections, cut them as a network would, or refuse them at once.
import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net";

/** A proxy on a random loopback port. */
export interface TcpProxy {
  readonly port: number;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Connections open now. */
  readonly open: number;
  /** Destroys every open connection, both sides, as a network failure would. */
  cut(): void;
  /** From now on, closes each new connection at once (`true`) or forwards it (`false`). */
  refuse(refusing: boolean): void;
  close(): Promise<void>;
}

/** Starts a proxy forwarding to `127.0.0.1:targetPort`. */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<[Socket, Socket]>();
  let accepted = 0;
  let refusing = false;
  const server: Server = createServer((client) => {
    accepted++;
    if (refusing) {
      client.destroy();
      return;
    }
    const upstream = tcpConnect(targetPort, "127.0.0.1");
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the proxy has no port");
  const proxy: TcpProxy = {
    port: address.port,
    get accepted() {
      return accepted;
    },
    get open() {
      return pairs.size;
    },
    cut() {
      for (const [client, upstream] of pairs) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    refuse(value) {
      refusing = value;
    },
    close() {
      proxy.cut();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}
