import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { QueueError } from "../../../core/errors.js";
import type { QueueEngine } from "../../../engine/queue-engine.js";
import { isMetricsRequest, type MetricsEndpoint } from "../../../metrics/metrics-endpoint.js";
import { OK } from "../../../metrics/request-metrics.js";
import { endpointOf, listen, portOf } from "../../http-listener.js";
import { ServerMetrics } from "../../metrics/server-metrics.js";
import { readRequestBody } from "../../request-body.js";
import type { SasKey } from "../sas.js";
import type { AdminAnswer, AdminContext } from "./admin-answers.js";
import { dispatch, notAllowed } from "./admin-dispatch.js";
import { errorDocument } from "./atom.js";
import { authorizeRequest } from "./authorization.js";
import { httpStatusOf } from "./http-status.js";
import { type AdminRoute, routeOf } from "./routes.js";

/** A request body larger than this is refused unread: a queue description is a few kilobytes. */
export const MAX_ADMIN_REQUEST_BYTES = 1024 * 1024;

/** The official emulator's namespace name, used when none is given. */
export const DEFAULT_NAMESPACE_NAME = "sbemulatorns";

/** How a Service Bus administration server starts. */
export interface ServiceBusAdminServerOptions {
  readonly engine: QueueEngine;
  readonly host?: string;
  /** 0 picks a free port; 5300 (the official emulator's) by default. */
  readonly port?: number;
  /** The key requests must be signed with; `null` accepts every request (`--no-auth`). */
  readonly sasKey: SasKey | null;
  /** The namespace's name in answers (`getNamespaceProperties`); `sbemulatorns` by default. */
  readonly namespaceName?: string;
  /** Where requests are counted and `GET /metrics` reads from; shared by `serve`'s servers (one of its own by default). */
  readonly metrics?: ServerMetrics;
}

/**
 * The Service Bus management REST API (ATOM/XML over plain HTTP) on the queue engine: what
 * `ServiceBusAdministrationClient` sends to create, get, update, delete and list queues and read
 * their message counts, and the same for topics, their subscriptions and the subscriptions'
 * rules, with SAS tokens checked against the server's key. Every failure is answered in
 * Azure's `<Error>` shape; nothing internal reaches a response.
 */
export class ServiceBusAdminServer {
  readonly #http: Server;
  readonly #engine: QueueEngine;
  readonly #sasKey: SasKey | null;
  readonly #namespaceName: string;
  readonly #startedAt = new Date();
  readonly #metrics: ServerMetrics;
  readonly #metricsEndpoint: MetricsEndpoint;

  private constructor(options: ServiceBusAdminServerOptions) {
    this.#engine = options.engine;
    this.#sasKey = options.sasKey;
    this.#namespaceName = options.namespaceName ?? DEFAULT_NAMESPACE_NAME;
    this.#metrics = options.metrics ?? new ServerMetrics(options.engine);
    this.#metricsEndpoint = this.#metrics.endpoint(options.host ?? "127.0.0.1");
    this.#http = createServer(
      { keepAliveTimeout: 65_000, requestTimeout: 60_000, headersTimeout: 20_000 },
      (req, res) => {
        // Unsigned only, as the health check: the SDK signs every request, so a queue named `metrics` stays reachable.
        if (isMetricsRequest(req) && req.headers.authorization === undefined)
          void this.#metricsEndpoint.answer(req, res);
        else void this.#handle(req, res);
      },
    );
  }

  /** Starts a server and resolves once it listens. */
  static async start(options: ServiceBusAdminServerOptions): Promise<ServiceBusAdminServer> {
    const server = new ServiceBusAdminServer(options);
    const port = options.port ?? 5300;
    const host = options.host ?? "127.0.0.1";
    await listen(server.#http, port, host).catch((error: NodeJS.ErrnoException) => {
      throw listenError(error, host, port);
    });
    return server;
  }

  /** `http://host:port` where the server listens. */
  get endpoint(): string {
    return endpointOf(this.#http);
  }

  /** The port the server listens on. */
  get port(): number {
    return portOf(this.#http);
  }

  /** Stops taking connections and resolves once the open ones are closed. The engine stays open. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#http.close(() => resolve()));
    this.#http.closeIdleConnections();
    this.#http.closeAllConnections();
    await closed;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const trackingId = randomUUID();
    const counted = { operation: "unrouted", started: performance.now() };
    try {
      const answer = await this.#answer(req, counted);
      send(res, answer.status, answer.contentType, answer.body, req.complete);
      this.#count(counted, OK);
    } catch (error) {
      this.#count(counted, error instanceof QueueError ? error.code : "InternalError");
      const status = httpStatusOf(error);
      // Only our own refusals are shown; anything else could carry internals (paths, stacks).
      const why =
        error instanceof QueueError && status < 500
          ? error.message
          : "The server could not handle the request.";
      const sentence = /[.!?]$/.test(why) ? why : `${why}.`;
      const detail = `${sentence} TrackingId:${trackingId}, Timestamp:${new Date().toISOString()}`;
      try {
        send(res, status, "application/xml; charset=utf-8", errorDocument(status, detail), req.complete);
      } catch {
        // Nothing more can be said on this connection; the process must not fall over for it.
        res.destroy();
      }
    }
  }

  /** Records an answered request of the operation `counted` names. */
  #count(counted: { operation: string; started: number }, outcome: string): void {
    this.#metrics.requests.record(
      "servicebus_admin",
      counted.operation,
      outcome,
      (performance.now() - counted.started) / 1000,
    );
  }

  /** Answers a request; names its operation in `counted` once its route is known. */
  async #answer(req: IncomingMessage, counted: { operation: string }): Promise<AdminAnswer> {
    const target = req.url ?? "/";
    const at = target.indexOf("?");
    const path = at < 0 ? target : target.slice(0, at);
    const query = at < 0 ? "" : target.slice(at + 1);
    const authorization = req.headers.authorization;
    const body = await readRequestBody(req, MAX_ADMIN_REQUEST_BYTES, tooLarge);
    const route = routeOf(path, authorization !== undefined);
    const method = req.method ?? "GET";
    counted.operation = operationOf(method, route);
    if (route.kind === "health") {
      if (method !== "GET") throw notAllowed(method, path);
      return {
        status: 200,
        contentType: "application/json; charset=utf-8",
        body: JSON.stringify({ status: "healthy", message: "Service is healthy." }),
      };
    }
    const now = this.#engine.clock.now();
    if (this.#sasKey !== null) authorizeRequest(authorization, this.#sasKey, path, query, now);
    const context: AdminContext = {
      engine: this.#engine,
      origin: `http://${hostOf(req.headers.host) ?? new URL(this.endpoint).host}`,
      namespaceName: this.#namespaceName,
      startedAt: this.#startedAt,
    };
    return dispatch(context, route, {
      method,
      query: new URLSearchParams(query),
      headers: req.headers,
      body,
      sasKey: this.#sasKey,
      now,
    });
  }
}

/** The methods the API answers; any other is counted as `OTHER`, so a client's made-up method adds no series. */
const METHODS: ReadonlySet<string> = new Set(["GET", "PUT", "DELETE", "POST", "HEAD"]);

/** An operation's name for the request counts: method and route kind (`PUT entity`, `GET subscriptions`). */
function operationOf(method: string, route: AdminRoute): string {
  return `${METHODS.has(method) ? method : "OTHER"} ${route.kind}`;
}

// The Host header names the server in entity URLs; anything but a host and port is not used.
function hostOf(header: string | undefined): string | undefined {
  return header !== undefined && /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/.test(header)
    ? header
    : undefined;
}

function send(
  res: ServerResponse,
  status: number,
  contentType: string | undefined,
  body: string,
  requestRead: boolean,
): void {
  if (res.headersSent) return;
  const headers: Record<string, string | number> = { "content-length": Buffer.byteLength(body) };
  if (contentType !== undefined) headers["content-type"] = contentType;
  // A body left unread cannot be skipped safely on this connection.
  if (!requestRead) headers.connection = "close";
  res.writeHead(status, headers).end(body);
}

// A port taken (or privileged) is the operator's to fix: said in words, the system error kept as the cause.
function listenError(error: NodeJS.ErrnoException, host: string, port: number): Error {
  if (error.code !== "EADDRINUSE" && error.code !== "EACCES") return error;
  const why = error.code === "EADDRINUSE" ? "the port is in use" : "permission denied";
  return new QueueError(
    "Configuration",
    `the Service Bus admin API cannot listen on ${host}:${port}: ${why}`,
    {
      cause: error,
    },
  );
}

function tooLarge(): QueueError {
  return new QueueError(
    "MessageTooLarge",
    `The request body is larger than ${MAX_ADMIN_REQUEST_BYTES} bytes.`,
  );
}
