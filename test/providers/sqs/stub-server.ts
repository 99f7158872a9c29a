import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";

/** One request as the stub saw it. */
export interface StubRequest {
  readonly target: string;
  readonly body: Record<string, unknown>;
  readonly headers: IncomingMessage["headers"];
}

/** What the stub answers; `null` never answers. */
export type StubAnswer = { status: number; headers?: Record<string, string>; body: unknown } | null;

/** A scripted HTTP endpoint: each request is recorded and answered by the current handler. */
export interface Stub {
  endpoint(): string;
  readonly requests: StubRequest[];
  answer(handler: (request: StubRequest) => StubAnswer): void;
}

/** An SQS error answer in the JSON protocol, with the query-compatible header. */
export function sqsErrorAnswer(status: number, type: string, queryCode: string, message: string): StubAnswer {
  return {
    status,
    headers: { "x-amzn-query-error": `${queryCode};${status >= 500 ? "Receiver" : "Sender"}` },
    body: { __type: `com.amazonaws.sqs#${type}`, message },
  };
}

/** A stub SQS endpoint for the tests of one file, on a free port. */
export function useStubServer(): Stub {
  let server: Server | undefined;
  let handler: (request: StubRequest) => StubAnswer = () => ({ status: 200, body: {} });
  const requests: StubRequest[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const request: StubRequest = {
          target: String(req.headers["x-amz-target"] ?? "").replace("AmazonSQS.", ""),
          body: JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}") as Record<string, unknown>,
          headers: req.headers,
        };
        requests.push(request);
        const answer = handler(request);
        if (answer === null) return;
        res.writeHead(answer.status, { "content-type": "application/x-amz-json-1.0", ...answer.headers });
        res.end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });
  return {
    endpoint: () => `http://127.0.0.1:${(server!.address() as AddressInfo).port}`,
    requests,
    answer(next) {
      handler = next;
    },
  };
}
