// What a test sees of the endpoint's insides without touching src: the TCP server rhea listens
// with (to count the sockets it keeps and to tell which client's bytes caused which reported
// error) and every server-side connection, held weakly, so that a leak shows as a connection
// that outlives its socket and a garbage collection.
import type { Server, Socket } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import rhea, { type Connection, type Container, type EventContext } from "rhea";

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

/** A server-side connection still reachable after its socket went and the heap was collected. */
export interface LeakedConnection {
  /** The client's port: the raw connection's `socket.localPort`. */
  readonly clientPort: number | undefined;
  /** The events the connection got (`connection_open`, `receiver_open`, …). */
  readonly events: string;
  /** Whether rhea counts it closed by both sides, after which it never reports it disconnected. */
  readonly closedByBoth: boolean;
}

interface Seen {
  readonly ref: WeakRef<Connection>;
  readonly clientPort: number | undefined;
  events: string;
}

/** The endpoint's TCP sockets and rhea connections, watched from outside. */
export class ServerProbe {
  readonly #sockets = new Set<Socket>();
  readonly #seen: Seen[] = [];
  readonly #ignored = new WeakSet<Connection>();
  #errors: readonly unknown[] | undefined;
  readonly #errorsByPort = new Map<number, unknown[]>();

  constructor(container: Container, server: Server) {
    server.on("connection", (socket: Socket) => this.#accept(socket));
    // The server listens to these events itself, so one more listener changes nothing rhea does.
    for (const event of ["connection_open", "sender_open", "receiver_open"] as const)
      container.on(event, (context: EventContext) => this.#see(context.connection, event));
  }

  /** Starts `start` (which starts one endpoint) and watches the container and server it creates. */
  static async around<T>(start: () => Promise<T>): Promise<{ started: T; probe: ServerProbe }> {
    const target = rhea as unknown as { create_container: (options?: object) => Container };
    const original = target.create_container;
    let probe: ServerProbe | undefined;
    target.create_container = (options) => {
      const container = original.call(rhea, options);
      const listen = container.listen.bind(container) as (options: object) => Server;
      (container as unknown as { listen: (options: object) => Server }).listen = (listenOptions) => {
        const server = listen(listenOptions);
        probe = new ServerProbe(container, server);
        return server;
      };
      return container;
    };
    try {
      const started = await start();
      if (probe === undefined) throw new Error("the endpoint did not listen through rhea's container");
      return { started, probe };
    } finally {
      target.create_container = original;
    }
  }

  /**
   * From now on, what the server adds to `errors` while it reads a client's bytes is counted
   * against that client (by its port); see {@link errorsOf}.
   */
  attributeErrors(errors: readonly unknown[]): void {
    this.#errors = errors;
  }

  /** The errors the server reported while it read the bytes of the client on `clientPort`. */
  errorsOf(clientPort: number | undefined): unknown[] {
    return clientPort === undefined ? [] : (this.#errorsByPort.get(clientPort) ?? []);
  }

  /** Whether the server still has an open socket to the client on `clientPort`. */
  holds(clientPort: number | undefined): boolean {
    for (const socket of this.#sockets)
      if (socket.remotePort === clientPort && !socket.destroyed) return true;
    return false;
  }

  /** Server-side sockets still open (closed ones are let go: a socket holds its rhea connection). */
  openSockets(): number {
    for (const socket of this.#sockets) if (socket.destroyed) this.#sockets.delete(socket);
    return this.#sockets.size;
  }

  /** Connections seen so far are not the fuzz's (the SDK client's own): they are never counted as leaks. */
  ignoreSeen(): void {
    for (const { ref } of this.#seen.splice(0)) {
      const connection = ref.deref();
      if (connection !== undefined) this.#ignored.add(connection);
    }
  }

  /**
   * The server-side connections seen since the last call (or {@link ignoreSeen}) that are still
   * reachable after a garbage collection, once their sockets are gone: what the server still holds.
   */
  async leakedConnections(): Promise<LeakedConnection[]> {
    this.openSockets();
    let candidates = this.#seen.splice(0);
    // What is still reachable is looked at again a little later: a connection may be held for a
    // moment by work under way (a timer, a promise of a receive that was just aborted).
    for (let round = 0; round < 4 && candidates.length > 0; round++) {
      await new Promise((resolve) => setTimeout(resolve, round === 0 ? 0 : 50));
      collectGarbage();
      await new Promise((resolve) => setImmediate(resolve));
      collectGarbage();
      candidates = candidates.filter(({ ref }) => {
        const socket = (ref.deref() as unknown as { socket?: Socket } | undefined)?.socket;
        return ref.deref() !== undefined && (socket === undefined || socket.destroyed);
      });
    }
    // A connection whose socket is still open is in use (the test has not let it go yet): not counted.
    return candidates.map(({ ref, clientPort, events }) => ({
      clientPort,
      events,
      closedByBoth: ref.deref()?.is_closed() ?? false,
    }));
  }

  #accept(socket: Socket): void {
    this.#sockets.add(socket);
    const port = socket.remotePort;
    let before = 0;
    // rhea's own 'data' listener was added first; these run just before and just after it.
    socket.prependListener("data", () => {
      before = this.#errors?.length ?? 0;
    });
    socket.on("data", () => {
      const errors = this.#errors;
      if (errors === undefined || port === undefined || errors.length === before) return;
      const list = this.#errorsByPort.get(port) ?? [];
      list.push(...errors.slice(before));
      this.#errorsByPort.set(port, list);
    });
  }

  #see(connection: Connection, event: string): void {
    if (this.#ignored.has(connection)) return;
    const seen = this.#seen.find((entry) => entry.ref.deref() === connection);
    if (seen !== undefined) {
      if (!seen.events.includes(event)) seen.events += `,${event}`;
      return;
    }
    const socket = (connection as unknown as { socket?: Socket }).socket;
    this.#seen.push({ ref: new WeakRef(connection), clientPort: socket?.remotePort, events: event });
  }
}
