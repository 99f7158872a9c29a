import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import {
  credentialsLookup,
  getHeader,
  SigV4Verifier,
  splitRequestTarget,
  sqsError,
} from "../../aws/index.js";
import type { AwsCredentials } from "../../aws/sigv4/credentials.js";
import type { QueueEngine } from "../../engine/queue-engine.js";
import { isMetricsRequest, type MetricsEndpoint } from "../../metrics/metrics-endpoint.js";
import { OK } from "../../metrics/request-metrics.js";
import { endpointOf, listen, portOf } from "../http-listener.js";
import { ServerMetrics } from "../metrics/server-metrics.js";
import { readRequestBody } from "../request-body.js";
import { DEFAULT_ACCOUNT_ID } from "./queue-urls.js";
import { SqsService } from "./sqs-service.js";
import { wireProtocolOf } from "./wire-protocols.js";

/** The signal of calls that never wait. */
const NEVER = new AbortController().signal;

/** A request body larger than this is refused before it is read: a full batch, escaped, fits well within. */
export const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

/** How an SQS server starts. */
export interface SqsServerOptions {
  readonly engine: QueueEngine;
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  readonly region?: string;
  readonly accountId?: string;
  /** The credentials requests must be signed with; `null` accepts any request unsigned. */
  readonly credentials: AwsCredentials | null;
  /** Told of every request once it is answered (a request log). */
  readonly onAnswer?: (answered: AnsweredRequest) => void;
  /** Answers the requests it serves (the dashboard's page and API) instead of SQS, unsigned. */
  readonly pages?: PageHandler;
  /** Where requests are counted and `GET /metrics` reads from; shared by `serve`'s servers (one of its own by default). */
  readonly metrics?: ServerMetrics;
}

/** What answers the requests on the SQS port that are not SQS calls. */
export interface PageHandler {
  /** Whether a request is this handler's (an SQS call never is). */
  serves(req: IncomingMessage): boolean;
  /** Answers a request it serves; never rejects. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

/** A request as answered, for a request log. */
export interface AnsweredRequest {
  /** The operation, once the request could be read (not for one refused before: a bad signature, say). */
  readonly operation: string | undefined;
  readonly protocol: "json" | "query";
  readonly status: number;
  /** From the request's arrival to its answer. */
  readonly ms: number;
  /** What was refused, when it was. */
  readonly error?: { readonly code: string; readonly message: string };
}

/**
 * Amazon SQS's JSON 1.0 protocol over HTTP on the queue engine: every request's signature is
 * checked, decoded, run by the {@link SqsService} and answered as SQS would, errors included.
 * Long polls end when their client goes away or the server stops.
 */
export class SqsServer {
  readonly #http: Server;
  readonly #service: SqsService;
  readonly #verifier: SigV4Verifier | undefined;
  readonly #accountId: string;
  readonly #onAnswer: ((answered: AnsweredRequest) => void) | undefined;
  readonly #metrics: ServerMetrics;
  readonly #metricsEndpoint: MetricsEndpoint;
  readonly #active = new Set<AbortController>();
  #running = 0;
  #drained: (() => void) | undefined;

  private constructor(options: SqsServerOptions) {
    this.#accountId = options.accountId ?? DEFAULT_ACCOUNT_ID;
    this.#onAnswer = options.onAnswer;
    this.#metrics = options.metrics ?? new ServerMetrics(options.engine);
    this.#metricsEndpoint = this.#metrics.endpoint(options.host ?? "127.0.0.1");
    this.#service = new SqsService({
      engine: options.engine,
      region: options.region ?? "us-east-1",
      accountId: this.#accountId,
    });
    this.#verifier =
      options.credentials === null
        ? undefined
        : new SigV4Verifier({
            service: "sqs",
            // As AWS does: a request signed for another region is refused, not served from this one's queues.
            region: options.region ?? "us-east-1",
            lookupSecret: credentialsLookup(options.credentials),
          });
    this.#http = createServer(
      { keepAliveTimeout: 65_000, requestTimeout: 60_000, headersTimeout: 20_000 },
      (req, res) => {
        // A GET of `/metrics` naming an SQS `Action` is an SQS call; no queue's URL is `/metrics`.
        if (isMetricsRequest(req) && !/[?&]Action=/.test(req.url ?? ""))
          void this.#metricsEndpoint.answer(req, res);
        else if (options.pages?.serves(req)) void options.pages.handle(req, res);
        else void this.#handle(req, res);
      },
    );
  }

  /** Starts a server and resolves once it listens. */
  static async start(options: SqsServerOptions): Promise<SqsServer> {
    const server = new SqsServer(options);
    await listen(server.#http, options.port ?? 9324, options.host ?? "127.0.0.1");
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

  /**
   * Stops taking connections, ends long polls (they answer with no messages), waits for the
   * requests under way to be answered, and stops the message move tasks. The engine stays open.
   */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.#http.close(() => resolve()));
    for (const controller of this.#active) controller.abort();
    this.#http.closeIdleConnections();
    if (this.#running > 0) await new Promise<void>((resolve) => (this.#drained = resolve));
    this.#http.closeAllConnections();
    this.#service.close();
    await closed;
  }

  /**
   * Whether the caller of a long poll that found messages has gone. A poll woken by a send runs
   * before the close of its connection that came in with that send is seen, so the answer waits
   * one turn of the event loop for it.
   */
  async #callerLeft(controller: AbortController, res: ServerResponse): Promise<boolean> {
    await new Promise((resolve) => setImmediate(resolve));
    return controller.signal.aborted || res.destroyed;
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const requestId = randomUUID();
    const arrived = performance.now();
    const method = req.method ?? "GET";
    const { path, query } = splitRequestTarget(req.url ?? "/");
    const protocol = wireProtocolOf(method, req.rawHeaders, query);
    let operation: string | undefined;
    let controller: AbortController | undefined;
    this.#running++;
    try {
      const body = await readRequestBody(req, MAX_REQUEST_BYTES, tooLarge);
      const verified = await this.#verifier?.verify({ method, path, query, headers: req.rawHeaders, body });
      const origin = `http://${getHeader(req.rawHeaders, "host") ?? new URL(this.endpoint).host}`;
      const request = protocol.decode({ method, path, query, headers: req.rawHeaders, body, origin });
      operation = request.operation;
      // Only a long poll waits: it alone gets a signal, aborted when its client leaves or the server stops.
      if (request.operation === "ReceiveMessage") {
        const watched = new AbortController();
        controller = watched;
        this.#active.add(watched);
        res.on("close", () => {
          if (this.#active.has(watched)) watched.abort();
        });
      }
      const undo: (() => void)[] = [];
      let longPoll = false;
      const output = await this.#service.handle(request, {
        origin,
        signal: controller?.signal ?? NEVER,
        senderId: verified?.accessKeyId ?? this.#accountId,
        onUndelivered: (step, waited) => {
          undo.push(step);
          longPoll ||= waited;
        },
      });
      // Only a long poll can have been woken by a send that came in with its caller's leaving.
      if (controller !== undefined && longPoll && (await this.#callerLeft(controller, res))) {
        for (const step of undo) step();
        return;
      }
      const answer = protocol.result(request.operation, output, requestId);
      // A stated length spares both sides chunked encoding (one more write and parse per response).
      res
        .writeHead(200, {
          "content-type": answer.contentType,
          "content-length": Buffer.byteLength(answer.body),
          "x-amzn-requestid": requestId,
        })
        .end(answer.body);
      if (undo.length > 0)
        res.on("close", () => {
          // Closed before the answer was handed to the connection: the caller never got it.
          if (!res.writableFinished) for (const step of undo) step();
        });
      this.#answered(
        { operation, protocol: protocol.name, status: 200, ms: performance.now() - arrived },
        OK,
      );
    } catch (error) {
      const answer = protocol.error(error, requestId);
      const headers: Record<string, string | number> = {
        ...answer.headers,
        "content-length": Buffer.byteLength(answer.body),
      };
      // A body left unread cannot be skipped safely on this connection.
      if (!req.complete) headers.connection = "close";
      if (!res.headersSent) res.writeHead(answer.status, headers).end(answer.body);
      this.#answered(
        {
          operation,
          protocol: protocol.name,
          status: answer.status,
          ms: performance.now() - arrived,
          error: { code: answer.error.queryCode, message: answer.error.message },
        },
        answer.error.awsCode,
      );
    } finally {
      if (controller !== undefined) this.#active.delete(controller);
      if (--this.#running === 0) this.#drained?.();
    }
  }

  /** Counts an answered request (`outcome`: ok or the error's name as SDKs report it) and tells the request log. */
  #answered(answered: AnsweredRequest, outcome: string): void {
    // A request refused before it was read (a bad signature) names no operation of its own.
    this.#metrics.requests.record("sqs", answered.operation ?? "unknown", outcome, answered.ms / 1000);
    this.#onAnswer?.(answered);
  }
}

/** The SQS error for a request body over {@link MAX_REQUEST_BYTES}. */
function tooLarge(bytes: number): Error {
  return sqsError(
    "BatchRequestTooLong",
    `Requests cannot be longer than ${MAX_REQUEST_BYTES} bytes. You have sent ${bytes} bytes.`,
  );
}
