import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../core/clock.js";
import { QueueError } from "../core/errors.js";
import type { QueueClient } from "../core/queue-client.js";
import { isMetricsRequest, MetricsEndpoint } from "../metrics/metrics-endpoint.js";
import type { Deliveries } from "../receiving/index.js";
import { DashboardAccess } from "./access.js";
import { DashboardApi } from "./dashboard-api.js";
import { COMMON_HEADERS, readJsonObject, sendError, sendJson } from "./http-io.js";
import { LiveUpdates } from "./live-updates.js";
import { DASHBOARD_ASSETS, PAGE_HEADERS } from "./page/assets.js";

/** Where the dashboard's API and assets live; the page itself is `/`. */
export const DASHBOARD_PREFIX = "/dashboard/";

/** How a dashboard is made. */
export interface DashboardOptions {
  readonly client: QueueClient;
  /** The receiver's failed deliveries and parked messages, when a receiving store is open. */
  readonly deliveries?: Deliveries;
  /** What a change must carry. */
  readonly token: string;
  /** Answer only requests addressed to a loopback name (true when listening on loopback). */
  readonly loopbackOnly: boolean;
  /** Removes secrets (a password in a URL) from a failure's message before the page sees it. */
  readonly scrub?: (text: string) => string;
  readonly clock?: Clock;
  /** How often an open page's counts are read (default 1 s). */
  readonly refreshMs?: number;
}

/** A request's method, its path split into decoded segments, and its query. */
interface Route {
  readonly method: string;
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
}

/** The asset each file name under `/dashboard/assets/` is. */
const ASSET_FILES: ReadonlyMap<string, keyof typeof DASHBOARD_ASSETS> = new Map([
  ["dashboard.css", "style"],
  ["dashboard.js", "script"],
  ["favicon.svg", "icon"],
]);

/** A query string naming an SQS `Action`: such a GET of `/` is an SQS call, not the page. */
const SQS_ACTION = /(?:^|&)Action=/;

/**
 * The dashboard as a node:http request handler: the page at `/`, its assets and JSON API under
 * {@link DASHBOARD_PREFIX}, live updates as server-sent events. Reads are open to whoever reaches
 * it; every change needs the token and the dashboard's own origin.
 */
export class Dashboard {
  readonly #api: DashboardApi;
  readonly #access: DashboardAccess;
  readonly #live: LiveUpdates;
  readonly #metrics: MetricsEndpoint;
  readonly #scrub: (text: string) => string;

  /** A dashboard over `options.client` (and its receiving store); it listens nowhere by itself. */
  constructor(options: DashboardOptions) {
    this.#api = new DashboardApi(options.client, options.deliveries);
    this.#access = new DashboardAccess(options.token, { loopbackOnly: options.loopbackOnly });
    this.#scrub = options.scrub ?? ((text) => text);
    this.#metrics = new MetricsEndpoint({
      collect: () => this.#api.metricFamilies(),
      loopbackOnly: options.loopbackOnly,
    });
    this.#live = new LiveUpdates({
      snapshot: () => this.#api.snapshot(),
      describe: (error) => this.#describe(error),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.refreshMs === undefined ? {} : { refreshMs: options.refreshMs }),
    });
  }

  /** Whether a request is the dashboard's: a GET of `/` that names no SQS action, or anything under {@link DASHBOARD_PREFIX}. */
  serves(req: IncomingMessage): boolean {
    const target = req.url ?? "/";
    const question = target.indexOf("?");
    const path = question < 0 ? target : target.slice(0, question);
    if (path.startsWith(DASHBOARD_PREFIX)) return true;
    const query = question < 0 ? "" : target.slice(question + 1);
    return path === "/" && (req.method === "GET" || req.method === "HEAD") && !SQS_ACTION.test(query);
  }

  /** Answers one request; never rejects. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Prometheus's scrape (on its own port: `serve` answers /metrics itself, with its requests).
    if (isMetricsRequest(req)) return this.#metrics.answer(req, res);
    try {
      this.#access.checkHost(req);
      const route = routeOf(req);
      if (route.method === "GET" || route.method === "HEAD") await this.#read(route, req, res);
      else {
        const body = await readJsonObject(req);
        this.#access.checkChange(req, body?.token);
        if (body === undefined) throw new QueueError("Validation", "send a change's body as a JSON object");
        await this.#change(route, body, res);
        this.#live.refresh();
      }
    } catch (error) {
      sendError(res, error, this.#scrub);
    }
  }

  /** Ends the open event streams and stops reading counts. */
  close(): void {
    this.#live.close();
  }

  /** Answers a GET: the page, an asset, the state, an event stream, a queue's messages or dead letters. */
  async #read(route: Route, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const [first, second, third, fourth, ...rest] = route.segments;
    if (route.segments.length === 0) return sendAsset(res, req, "page");
    if (first !== "dashboard") throw notFound();
    if (second === "assets" && third !== undefined && fourth === undefined)
      return sendAsset(res, req, ASSET_FILES.get(third) ?? "");
    if (second !== "api") throw notFound();
    if (third === "snapshot" && fourth === undefined) return sendJson(res, 200, await this.#api.snapshot());
    if (third === "events" && fourth === undefined) return this.#live.watch(res);
    if (third === "queues" && fourth !== undefined && rest.length === 1) {
      if (rest[0] === "messages")
        return sendJson(res, 200, await this.#api.messages(fourth, route.query.get("from") ?? undefined));
      if (rest[0] === "dead-letters") return sendJson(res, 200, await this.#api.deadLetters(fourth));
    }
    throw notFound();
  }

  /** Runs a change: send, purge, redrive, or a receiver item's retry or dismiss. */
  async #change(route: Route, body: Record<string, unknown>, res: ServerResponse): Promise<void> {
    const [first, second, third, name, action, ...rest] = route.segments;
    if (first !== "dashboard" || second !== "api" || name === undefined || rest.length > 0) throw notFound();
    if (route.method !== "POST")
      throw new QueueError("Validation", `${route.method} changes nothing here: changes are POSTs`);
    if (third === "queues" && action === "messages") {
      const messageId = await this.#api.send(name, text(body, "body"), optionalText(body, "sessionId"));
      return sendJson(res, 201, { queue: name, messageId });
    }
    if (third === "queues" && action === "purge")
      return sendJson(res, 200, { queue: name, purged: await this.#api.purge(name) });
    if (third === "queues" && action === "redrive")
      return sendJson(res, 200, {
        queue: name,
        moved: await this.#api.redrive(name, optionalText(body, "to")),
      });
    if (third === "deliveries" && action === "retry") {
      await this.#api.retry(name);
      return sendJson(res, 200, { id: name, status: "retried" });
    }
    if (third === "deliveries" && action === "dismiss") {
      await this.#api.dismiss(name);
      return sendJson(res, 200, { id: name, status: "dismissed" });
    }
    throw notFound();
  }

  /** A failure's code and message as the page may show them. */
  #describe(error: unknown): { code: string; message: string } {
    if (QueueError.is(error)) return { code: error.code, message: this.#scrub(error.message) };
    return { code: "Provider", message: this.#scrub(error instanceof Error ? error.message : String(error)) };
  }
}

/** The method and the decoded path segments of a request; `Validation` for a path that does not decode. */
function routeOf(req: IncomingMessage): Route {
  const url = new URL(req.url ?? "/", "http://dashboard.invalid");
  let segments: string[];
  try {
    segments = url.pathname
      .split("/")
      .filter((segment) => segment !== "")
      .map((segment) => decodeURIComponent(segment));
  } catch (error) {
    throw new QueueError("Validation", "the request path is not valid percent-encoding", { cause: error });
  }
  return { method: req.method ?? "GET", segments, query: url.searchParams };
}

/** Answers the page or one of its assets (`""` is none of them: not found). */
function sendAsset(
  res: ServerResponse,
  req: IncomingMessage,
  name: keyof typeof DASHBOARD_ASSETS | "",
): void {
  if (name === "") throw notFound();
  const asset = DASHBOARD_ASSETS[name];
  res.writeHead(200, {
    ...COMMON_HEADERS,
    ...PAGE_HEADERS,
    "content-type": asset.contentType,
    "content-length": Buffer.byteLength(asset.text),
  });
  res.end(req.method === "HEAD" ? undefined : asset.text);
}

/** A required string member of a change's body. */
function text(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== "string") throw new QueueError("Validation", `give ${name} as a string`);
  return value;
}

/** An optional string member of a change's body; an empty one is as good as none. */
function optionalText(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value === undefined || value === null || value === "") return undefined;
  return text(body, name);
}

/** The failure of a request for nothing the dashboard has. */
function notFound(): QueueError {
  return new QueueError("MessageNotFound", "the dashboard has nothing at this address");
}
