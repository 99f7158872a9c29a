import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
} from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { decodeSqsResponse, encodeSqsRequest } from "../../aws/json-protocol/client-codec.js";
import type { SqsInput, SqsOperation, SqsOutput } from "../../aws/json-protocol/sqs-operations.js";
import { sha256Hex } from "../../aws/sigv4/canonical-request.js";
import { SigV4Signer } from "../../aws/sigv4/signer.js";
import { onAbort } from "../../core/abort-watch.js";
import type { Clock } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import type { OperationContext } from "../../core/provider.js";
import type { CredentialSource } from "./credentials.js";
import type { SqsEndpoint } from "./endpoint.js";

/** Connections per endpoint for ordinary calls (the AWS SDK's default); long polls have their own pool. */
export const MAX_SOCKETS = 50;

interface RawResponse {
  readonly status: number;
  readonly headers: readonly string[];
  readonly body: Buffer;
}

/** One request on the wire, so that `close` can end it. */
interface Exchange {
  readonly longPoll: boolean;
  fail(error: QueueError): void;
}

/**
 * SQS's JSON 1.0 protocol over Node's own HTTP stack: each call is encoded, signed with SigV4 and
 * sent as `POST /` on keep-alive connections, with a deadline of its own and an abort signal;
 * error answers become `QueueError`s (throttling and 5xx transient).
 */
export class SqsHttp {
  readonly #endpoint: SqsEndpoint;
  readonly #credentials: CredentialSource;
  readonly #signer: SigV4Signer;
  readonly #request: typeof httpRequest;
  readonly #agent: HttpAgent;
  readonly #pollAgent: HttpAgent;
  readonly #hostname: string;
  readonly #port: string;
  readonly #host: string;
  readonly #exchanges = new Set<Exchange>();

  constructor(endpoint: SqsEndpoint, credentials: CredentialSource, clock: Clock) {
    this.#endpoint = endpoint;
    this.#credentials = credentials;
    this.#signer = new SigV4Signer({ region: endpoint.region, service: "sqs", clock });
    const tls = endpoint.url.protocol === "https:";
    const Agent = tls ? HttpsAgent : HttpAgent;
    this.#request = tls ? httpsRequest : httpRequest;
    this.#agent = new Agent({ keepAlive: true, maxSockets: MAX_SOCKETS, scheduling: "lifo" });
    this.#pollAgent = new Agent({ keepAlive: true, scheduling: "lifo" });
    this.#hostname = endpoint.url.hostname.replace(/^\[(.*)\]$/, "$1");
    this.#port = endpoint.url.port;
    this.#host = endpoint.url.host;
  }

  /** The region requests are signed for. */
  get region(): string {
    return this.#endpoint.region;
  }

  /**
   * Runs one SQS operation and resolves its result; an error answer rejects with the `QueueError`
   * it maps to. The request may take the context's timeout plus `longPollMs`, the time the
   * service is asked to wait (a long poll travels on its own connections, so waiting receives
   * never hold up other calls); the context's signal cancels it with `ClientClosed`.
   */
  async call<Op extends SqsOperation>(
    operation: Op,
    input: SqsInput<Op>,
    context: OperationContext,
    longPollMs = 0,
  ): Promise<SqsOutput<Op>> {
    if (context.signal.aborted) throw closed(operation);
    const credentials = await this.#credentials.get();
    const encoded = encodeSqsRequest(operation, input);
    // A string body goes out in one write with the headers; a Buffer would take a second one.
    const body = encoded.body;
    const headers: Record<string, string> = {
      host: this.#host,
      "content-type": encoded.headers["content-type"],
      "x-amz-target": encoded.headers["x-amz-target"],
    };
    const signed = this.#signer.sign(
      { method: "POST", path: "/", headers, payloadHash: sha256Hex(body) },
      credentials,
    ).headers;
    for (const name in signed) headers[name] = signed[name]!;
    // Unsigned on purpose: it only asks for the query-compatible error header.
    headers["x-amzn-query-mode"] = encoded.headers["x-amzn-query-mode"];
    headers["content-length"] = String(Buffer.byteLength(body));
    const response = await this.#send(operation, headers, body, context, longPollMs);
    return decodeSqsResponse(operation, response.status, response.headers, response.body);
  }

  /** Ends every long poll under way at once (its receive resolves empty). */
  abortLongPolls(): void {
    for (const exchange of this.#exchanges)
      if (exchange.longPoll) exchange.fail(new QueueError("ClientClosed", "the client is closing"));
  }

  /** Ends every request under way and closes the connections. */
  close(): void {
    for (const exchange of this.#exchanges)
      exchange.fail(new QueueError("ClientClosed", "the client is closing"));
    this.#agent.destroy();
    this.#pollAgent.destroy();
  }

  #send(
    operation: SqsOperation,
    headers: Record<string, string>,
    body: string,
    context: OperationContext,
    longPollMs: number,
  ): Promise<RawResponse> {
    const { signal } = context;
    const timeoutMs = context.timeoutMs + longPollMs;
    const longPoll = longPollMs > 0;
    return new Promise<RawResponse>((resolve, reject) => {
      let request: ClientRequest | undefined;
      let settled = false;
      const finish = () => {
        settled = true;
        clearTimeout(timer);
        forgetAbort();
        this.#exchanges.delete(exchange);
      };
      const exchange: Exchange = {
        longPoll,
        fail: (error) => {
          if (settled) return;
          finish();
          request?.destroy();
          reject(error);
        },
      };
      const timer = setTimeout(
        () =>
          exchange.fail(
            new QueueError("Timeout", `${operation} got no answer within ${timeoutMs} ms`, {
              providerCode: "RequestTimeout",
            }),
          ),
        timeoutMs,
      );
      // Not a listener per request: every call of a client shares its signal (see core/abort-watch.ts).
      const forgetAbort = onAbort(signal, () => exchange.fail(closed(operation)));
      this.#exchanges.add(exchange);
      request = this.#request({
        hostname: this.#hostname,
        port: this.#port,
        method: "POST",
        path: "/",
        headers,
        agent: longPoll ? this.#pollAgent : this.#agent,
      });
      request.on("error", (error) => exchange.fail(connectionFailed(operation, error)));
      request.on("response", (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("error", (error) => exchange.fail(connectionFailed(operation, error)));
        response.on("close", () => {
          if (!response.complete)
            exchange.fail(
              new QueueError("ConnectionFailed", `the connection closed during the answer to ${operation}`),
            );
        });
        response.on("end", () => {
          if (settled) return;
          finish();
          resolve({
            status: response.statusCode ?? 0,
            headers: response.rawHeaders,
            body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks),
          });
        });
      });
      request.end(body);
    });
  }
}

function closed(operation: SqsOperation): QueueError {
  return new QueueError("ClientClosed", `${operation} was cancelled: the client is closing`);
}

function connectionFailed(operation: SqsOperation, error: Error): QueueError {
  const code = (error as NodeJS.ErrnoException).code;
  return new QueueError(
    "ConnectionFailed",
    `${operation} failed on the connection: ${error.message}${code === undefined ? "" : ` (${code})`}`,
    { cause: error, ...(code === undefined ? {} : { providerCode: code }) },
  );
}
