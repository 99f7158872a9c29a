// One endpoint under fuzz: raw connections run against it one at a time, with what must hold
// after each (the server forgot the connection, answered or closed it, and still serves the SDK).
import { ServiceBusClient, type ServiceBusReceiver, type ServiceBusSender } from "@azure/service-bus";
import { QueueError } from "../../../../src/core/errors.js";
import type { SasKey } from "../../../../src/server/servicebus/sas.js";
import { createQueue, EMULATOR_KEY, type Endpoint, QUICK, startEndpoint } from "../harness.js";
import { type LeakedConnection, ServerProbe } from "./probe.js";
import { type Ending, RawConnection, type ServerFrame } from "./wire.js";

/** How long a connection may take to be closed by the server once it sent what it sends. */
export const BOUND_MS = 2_000;
/** How long a connection the server may rightly keep (it waits for more bytes) is watched before the client goes. */
export const HOLD_MS = 250;

/** The queue outside the fuzz, and what it holds. */
const KEEPER = "keeper";
const KEPT = ["kept-1", "kept-2", "kept-3"];
/** The queue a real client talks on between cases. */
const CONTROL = "control";

/** What the server reported through `onError`, sorted by cause. */
export type ErrorKind =
  /** Something rhea itself threw while it read a client's bytes (an undecodable frame, a frame out of order), passed on as is or as nothing. */
  | "rhea read error"
  /** A `QueueError` the server reported on purpose, in its own words (a client's fault it names). */
  | "reported"
  /** An exception thrown in the server's own code while it handled a client's frame: a bug, unless a test expects it. */
  | "server error";

/** The kind of an error reported through `onError`. */
export function kindOf(error: unknown): ErrorKind {
  if (error === undefined) return "rhea read error";
  if (QueueError.is(error)) return "reported";
  const stack = error instanceof Error ? (error.stack ?? "") : "";
  return stack.includes("src/server/servicebus") ? "server error" : "rhea read error";
}

/** An error as a line of a report: its message and the first frame of the server's code it came through. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const where = (error.stack ?? "")
    .split("\n")
    .find((line) => line.includes("src/server/servicebus"))
    ?.trim()
    .replace(/\(.*src\/server\/servicebus\//, "(");
  return `${error.name}: ${error.message}${where === undefined ? "" : ` ${where}`}`;
}

/** What one raw connection got. */
export interface RunResult {
  readonly connection: RawConnection;
  readonly ending: Ending;
  readonly frames: readonly ServerFrame[];
  /** What the server reported through `onError` while it read this connection's bytes. */
  readonly errors: readonly unknown[];
  /** Everything it reported while the case ran (other connections' too, when cases run side by side). */
  readonly errorsDuring: readonly unknown[];
  readonly ms: number;
}

/** An endpoint with a keeper queue, a control queue and a probe on its insides. */
export class FuzzBench {
  readonly endpoint: Endpoint;
  readonly probe: ServerProbe;
  readonly sasKey: SasKey | null;
  readonly #sender: ServiceBusSender;
  readonly #receiver: ServiceBusReceiver;
  #baselineSockets: number;
  #pings = 0;

  private constructor(
    endpoint: Endpoint,
    probe: ServerProbe,
    sasKey: SasKey | null,
    sender: ServiceBusSender,
    receiver: ServiceBusReceiver,
  ) {
    this.endpoint = endpoint;
    this.probe = probe;
    this.sasKey = sasKey;
    this.#sender = sender;
    this.#receiver = receiver;
    this.#baselineSockets = probe.openSockets();
  }

  /** Starts an endpoint (checking SAS tokens with the emulator's key unless `sasKey` is null), fills the keeper queue, and talks once on the control queue. */
  static async start(options: { sasKey?: SasKey | null } = {}): Promise<FuzzBench> {
    const sasKey = options.sasKey === undefined ? EMULATOR_KEY : options.sasKey;
    const { started: endpoint, probe } = await ServerProbe.around(() => startEndpoint({ sasKey }));
    createQueue(endpoint.engine, KEEPER);
    createQueue(endpoint.engine, CONTROL);
    await endpoint.client.createSender(KEEPER).sendMessages(KEPT.map((body) => ({ body })));
    const bench = new FuzzBench(
      endpoint,
      probe,
      sasKey,
      endpoint.client.createSender(CONTROL),
      endpoint.client.createReceiver(CONTROL),
    );
    await bench.healthy();
    bench.#baselineSockets = probe.openSockets();
    probe.ignoreSeen();
    probe.attributeErrors(endpoint.errors);
    return bench;
  }

  /** The key raw clients sign their tokens with (any key when the server checks none). */
  get key(): SasKey {
    return this.sasKey ?? EMULATOR_KEY;
  }

  /** Opens a raw connection. */
  connect(): Promise<RawConnection> {
    return RawConnection.connect(this.endpoint.server.port);
  }

  /**
   * Runs one raw connection: `script` writes to it (and may wait for answers); then the server
   * has `boundMs` to close it, after which the client goes away. Either way the server must
   * then hold no socket of it (checked here, within a second). Cases may run side by side.
   */
  async run(
    script: (connection: RawConnection) => Promise<void> | void,
    boundMs: number,
  ): Promise<RunResult> {
    const mark = this.endpoint.errors.length;
    const started = performance.now();
    const connection = await this.connect();
    const port = connection.socket.localPort;
    await script(connection);
    const ending = await connection.ending(boundMs);
    const ms = Math.round(performance.now() - started);
    if (ending === "open") await connection.destroy();
    const deadline = Date.now() + 1_000;
    while (this.probe.holds(port)) {
      if (Date.now() > deadline)
        throw new Error(`the server still holds the socket of a client that went away`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return {
      connection,
      ending,
      frames: [...connection.frames],
      errors: this.probe.errorsOf(port),
      errorsDuring: this.endpoint.errors.slice(mark),
      ms,
    };
  }

  /** Waits (a second at most) until the server holds no socket but the SDK client's; throws if it still does. */
  async socketsSettled(): Promise<void> {
    const deadline = Date.now() + 1_000;
    while (this.probe.openSockets() > this.#baselineSockets) {
      if (Date.now() > deadline)
        throw new Error(
          `the server still holds ${this.probe.openSockets() - this.#baselineSockets} socket(s) of clients that went away`,
        );
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** The server-side connections of raw clients that outlived their sockets (see {@link ServerProbe.leakedConnections}). */
  leaks(): Promise<LeakedConnection[]> {
    return this.probe.leakedConnections();
  }

  /** The real SDK client still sends and receives on the control queue. */
  async healthy(): Promise<void> {
    const body = `ping-${++this.#pings}`;
    await this.#sender.sendMessages({ body });
    const [message] = await this.#receiver.receiveMessages(1, { maxWaitTimeInMs: 2_000 });
    if (message?.body !== body)
      throw new Error(`the control queue gave ${String(message?.body)}, not ${body}`);
    await this.#receiver.completeMessage(message);
  }

  /**
   * The end of a test: no connection leaked, the keeper queue still holds its messages (as the
   * engine counts them and, unless `newClient` is false, as a new SDK client peeks them), and
   * the SDK is still served (by a new client too, unless `newClient` is false).
   */
  async finish(
    options: { newClient?: boolean } = {},
  ): Promise<{ keeper: unknown[]; leaks: LeakedConnection[] }> {
    const leaks = await this.leaks();
    const stats = this.endpoint.engine.stats(KEEPER);
    if (stats.active !== KEPT.length || stats.inFlight !== 0)
      throw new Error(`the keeper queue changed: ${JSON.stringify(stats)}`);
    await this.healthy();
    if (options.newClient === false) return { keeper: [...KEPT], leaks };
    const client = new ServiceBusClient(this.endpoint.connectionString(), QUICK);
    try {
      const peeked = await client.createReceiver(KEEPER).peekMessages(10);
      const body = `fresh-${Date.now()}`;
      await client.createSender(CONTROL).sendMessages({ body });
      const receiver = client.createReceiver(CONTROL, { receiveMode: "receiveAndDelete" });
      const [message] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2_000 });
      if (message?.body !== body)
        throw new Error(`a new client got ${String(message?.body)} from the control queue`);
      return { keeper: peeked.map((one) => one.body), leaks };
    } finally {
      await client.close();
    }
  }
}

/** The bodies the keeper queue must still hold at the end. */
export const KEPT_BODIES: readonly string[] = KEPT;
