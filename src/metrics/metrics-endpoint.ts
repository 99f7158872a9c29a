import type { IncomingMessage, ServerResponse } from "node:http";
import { QueueError } from "../core/errors.js";
import { addressedToLoopback } from "../http/loopback-hosts.js";
import { type MetricFamily, PROMETHEUS_CONTENT_TYPE, renderFamilies } from "./prometheus-text.js";

/** Where every server of queue-runtime answers its metrics. */
export const METRICS_PATH = "/metrics";

/** What an endpoint exposes and who may read it. */
export interface MetricsEndpointOptions {
  /** The families of one scrape. */
  readonly collect: () => Promise<readonly MetricFamily[]>;
  /** Answer only requests addressed to a loopback name (true when the server listens on loopback). */
  readonly loopbackOnly: boolean;
}

/** Whether a request is a `GET` (or `HEAD`) of {@link METRICS_PATH}, whatever its query. */
export function isMetricsRequest(req: IncomingMessage): boolean {
  if (req.method !== "GET" && req.method !== "HEAD") return false;
  const target = req.url ?? "/";
  const question = target.indexOf("?");
  return (question < 0 ? target : target.slice(0, question)) === METRICS_PATH;
}

/**
 * `GET /metrics` in Prometheus's text format, unsigned, as the dashboard's reads are: no secret
 * (Prometheus signs neither SigV4 nor SAS) and nothing in it a secret or a message's content;
 * on a server bound to loopback only requests addressed to a loopback name are answered, so a
 * page of another site that rebinds its name to 127.0.0.1 cannot read it. Scrapes that arrive
 * while one is being read share its answer.
 */
export class MetricsEndpoint {
  readonly #options: MetricsEndpointOptions;
  #reading: Promise<string> | undefined;

  /** An endpoint that reads with `options.collect`. */
  constructor(options: MetricsEndpointOptions) {
    this.#options = options;
  }

  /** Answers one request that {@link isMetricsRequest} is true of; never rejects. */
  async answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      if (this.#options.loopbackOnly && !addressedToLoopback(req))
        throw new QueueError(
          "PermissionDenied",
          "metrics are answered to requests addressed to localhost or 127.0.0.1 only",
        );
      const text = await this.#text();
      reply(
        res,
        200,
        PROMETHEUS_CONTENT_TYPE,
        req.method === "HEAD" ? undefined : text,
        Buffer.byteLength(text),
      );
    } catch (error) {
      const refused = QueueError.is(error, "PermissionDenied") ? 403 : 500;
      // Only our own refusals are shown: a failed read could carry a store's internals.
      const why = refused < 500 && error instanceof Error ? error.message : "the metrics could not be read";
      reply(res, refused, "text/plain; charset=utf-8", `${why}\n`, Buffer.byteLength(`${why}\n`));
    }
  }

  /** The text of a scrape: the one being read, else a new read. */
  #text(): Promise<string> {
    this.#reading ??= this.#options
      .collect()
      .then(renderFamilies)
      .finally(() => {
        this.#reading = undefined;
      });
    return this.#reading;
  }
}

/** Writes a whole answer, unless one was already started (then the connection is cut). */
function reply(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string | undefined,
  length: number,
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const headers: Record<string, string | number> = {
    "content-type": contentType,
    "content-length": length,
    "cache-control": "no-store",
  };
  res.writeHead(status, headers).end(body);
}
