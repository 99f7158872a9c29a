import { type JetStreamManager, jetstreamManager } from "@nats-io/jetstream";
import type { ConnectionOptions, Msg, MsgHdrs, NatsConnection, Payload } from "@nats-io/transport-node";
import { connect } from "@nats-io/transport-node";
import { QueueError } from "../../core/errors.js";
import type { NatsProviderConfig } from "./config.js";
import { fromNatsError } from "./errors.js";
import { Exchange } from "./exchange.js";

/** How long a broken connection waits between attempts to come back (the library tries for ever). */
const RECONNECT_WAIT_MS = 250;

/** One NATS connection with JetStream, and whether it is up right now. */
export class NatsLink {
  readonly nc: NatsConnection;
  readonly jsm: JetStreamManager;
  /** The servers as the config names them, for error messages (no credentials: they are apart in the config). */
  readonly servers: string;
  readonly timeoutMs: number;
  #up = true;
  #reconnects = 0;
  /** Ends the calls under way, when the connection drops. */
  readonly #inFlight = new Set<() => void>();
  readonly #exchange: Exchange;

  private constructor(nc: NatsConnection, jsm: JetStreamManager, servers: string, timeoutMs: number) {
    this.nc = nc;
    this.#exchange = new Exchange(nc);
    this.jsm = jsm;
    this.servers = servers;
    this.timeoutMs = timeoutMs;
    void this.#watch();
  }

  /** Connects to `config.servers`; a server refusing or not there is `ConnectionFailed` naming them. */
  static async open(config: NatsProviderConfig, timeoutMs: number): Promise<NatsLink> {
    const servers = Array.isArray(config.servers) ? config.servers : [config.servers];
    if (servers.length === 0 || servers.some((server) => typeof server !== "string" || server === ""))
      throw new QueueError(
        "Configuration",
        "servers must name at least one NATS server, such as nats://127.0.0.1:4222",
      );
    const label = servers.join(", ");
    const options: ConnectionOptions = {
      servers,
      name: "queue-runtime",
      maxReconnectAttempts: -1,
      reconnectTimeWait: RECONNECT_WAIT_MS,
      timeout: Math.min(timeoutMs, 10_000),
      // Every request would otherwise make two errors for their stack traces, answered or not: a
      // large share of a settle's CPU. Failures reach callers as QueueErrors naming what they did.
      noAsyncTraces: true,
      ...(config.user === undefined ? {} : { user: config.user }),
      ...(config.pass === undefined ? {} : { pass: config.pass }),
      ...(config.token === undefined ? {} : { token: config.token }),
      ...(config.tls === undefined ? {} : { tls: config.tls === true ? {} : config.tls }),
    };
    let nc: NatsConnection;
    try {
      nc = await connect(options);
    } catch (error) {
      const failure = fromNatsError(error, "connecting", label, true);
      if (failure.code !== "Provider" && failure.code !== "Timeout") throw failure;
      throw new QueueError("ConnectionFailed", `cannot reach NATS at ${label}: ${failure.message}`, {
        cause: error,
      });
    }
    try {
      const jsm = await jetstreamManager(nc, { timeout: timeoutMs });
      return new NatsLink(nc, jsm, label, timeoutMs);
    } catch (error) {
      await nc.close();
      throw new QueueError("Configuration", `NATS at ${label} has no JetStream (start it with -js)`, {
        cause: error,
      });
    }
  }

  /** Follows the connection's status: calls fail at once while it is down. */
  async #watch(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === "disconnect" || status.type === "reconnecting") {
        this.#up = false;
        for (const cut of [...this.#inFlight]) cut();
      } else if (status.type === "reconnect") {
        this.#up = true;
        this.#reconnects++;
      }
    }
  }

  /** Whether the connection is up. */
  get up(): boolean {
    return this.#up && !this.nc.isClosed();
  }

  /** How often the connection came back: core subscriptions miss what was published meanwhile. */
  get reconnects(): number {
    return this.#reconnects;
  }

  /** Fails with `ConnectionFailed` while the connection is down. */
  checkUp(what: string): void {
    if (this.nc.isClosed()) throw new QueueError("ClientClosed", `${what}: the client is closed`);
    if (!this.#up)
      throw new QueueError(
        "ConnectionFailed",
        `${what}: the connection to NATS at ${this.servers} is down; reconnecting`,
      );
  }

  /**
   * Sends a request as `what` with this turn's others (see {@link Exchange}) and resolves what
   * `read` makes of its answer, as {@link call} runs a call (so `read`'s errors are QueueErrors too).
   */
  ask<T>(
    what: string,
    subject: string,
    payload: Payload,
    read: (answer: Msg) => T,
    headers?: MsgHdrs,
  ): Promise<T> {
    const token = this.#exchange.token();
    return this.call(
      what,
      async () => read(await this.#exchange.request(token, subject, payload, headers)),
      () => this.#exchange.forget(token),
    );
  }

  /**
   * Runs a library call as `what`: at once `ConnectionFailed` while down, its errors as
   * QueueErrors; `ended` runs once it is over, answered or not.
   */
  async call<T>(what: string, run: () => Promise<T>, ended?: () => void): Promise<T> {
    this.checkUp(what);
    let timer: NodeJS.Timeout | undefined;
    let cut: (() => void) | undefined;
    // A flush or a request the library would keep while reconnecting ends within the operation's
    // time, and one under way when the connection drops ends then: its answer is not coming.
    const over = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(this.#late(what)), this.timeoutMs);
      cut = () => reject(this.#down(what));
      this.#inFlight.add(cut);
    });
    try {
      return await Promise.race([run(), over]);
    } catch (error) {
      throw this.error(error, what);
    } finally {
      clearTimeout(timer);
      if (cut !== undefined) this.#inFlight.delete(cut);
      ended?.();
    }
  }

  #down(what: string): QueueError {
    return new QueueError(
      "ConnectionFailed",
      `${what}: the connection to NATS at ${this.servers} is down; reconnecting`,
    );
  }

  #late(what: string): QueueError {
    return this.#up
      ? new QueueError(
          "Timeout",
          `${what}: NATS at ${this.servers} did not answer within ${this.timeoutMs} ms`,
        )
      : new QueueError(
          "ConnectionFailed",
          `${what}: the connection to NATS at ${this.servers} is down; reconnecting`,
        );
  }

  /** A QueueError for `error` met while doing `what`. */
  error(error: unknown, what: string): QueueError {
    if (this.nc.isClosed() && !QueueError.is(error))
      return new QueueError("ClientClosed", `${what}: the client is closed`, { cause: error });
    return fromNatsError(error, what, this.servers, !this.#up);
  }

  /** Closes the connection. */
  async close(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.close().catch(() => undefined);
  }
}
