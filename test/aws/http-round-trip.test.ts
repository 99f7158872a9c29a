import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AWS_JSON_1_0,
  credentialsLookup,
  decodeSqsRequest,
  decodeSqsResponse,
  encodeSqsError,
  encodeSqsRequest,
  encodeSqsResponse,
  md5OfMessageAttributes,
  md5OfMessageBody,
  regionFromHost,
  SigV4Credentials,
  SigV4Signer,
  SigV4Verifier,
  splitRequestTarget,
  sqsError,
} from "../../src/aws/index.js";
import { QueueError } from "../../src/core/errors.js";

const serverCredentials = { accessKeyId: "AKIDLOCAL", secretAccessKey: "local-secret" };

/** A minimal SQS-shaped server: verify, decode, answer SendMessage, answer errors. */
function startServer(): Promise<Server> {
  const verifier = new SigV4Verifier({ service: "sqs", lookupSecret: credentialsLookup(serverCredentials) });
  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    try {
      const { path, query } = splitRequestTarget(req.url ?? "/");
      await verifier.verify({ method: req.method ?? "POST", path, query, headers: req.rawHeaders, body });
      const request = decodeSqsRequest(req.rawHeaders, body);
      if (request.operation !== "SendMessage") throw sqsError("UnsupportedOperation");
      const { MessageBody, MessageAttributes } = request.input;
      if (!request.input.QueueUrl.endsWith("/orders")) throw sqsError("QueueDoesNotExist");
      const output = encodeSqsResponse("SendMessage", {
        MessageId: "m-1",
        MD5OfMessageBody: md5OfMessageBody(MessageBody),
        MD5OfMessageAttributes: md5OfMessageAttributes(MessageAttributes ?? {}),
      });
      res.writeHead(200, { "content-type": AWS_JSON_1_0, "x-amzn-requestid": "r-1" }).end(output);
    } catch (error) {
      const answer = encodeSqsError(error, "r-1");
      res.writeHead(answer.status, answer.headers).end(answer.body);
    }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

let server: Server;
let endpoint: URL;

beforeAll(async () => {
  server = await startServer();
  endpoint = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** The client side: encode, sign, send, decode. */
async function sendMessage(queueUrl: string, credentials = serverCredentials) {
  const signer = new SigV4Signer({ region: regionFromHost(endpoint.host), service: "sqs" });
  const encoded = encodeSqsRequest("SendMessage", {
    QueueUrl: queueUrl,
    MessageBody: "héllo",
    MessageAttributes: { b: { DataType: "Binary", BinaryValue: new Uint8Array([1, 2, 3]) } },
  });
  const headers = { ...encoded.headers, host: endpoint.host };
  const signed = signer.sign(
    { method: "POST", path: "/", headers, body: encoded.body },
    SigV4Credentials.from(credentials),
  );
  const response = await fetch(endpoint, {
    method: "POST",
    headers: { ...headers, ...signed.headers },
    body: encoded.body,
  });
  return decodeSqsResponse(
    "SendMessage",
    response.status,
    Object.fromEntries(response.headers),
    new Uint8Array(await response.arrayBuffer()),
  );
}

describe("a signed SQS request over HTTP", () => {
  it("is verified, decoded and answered, and the answer decodes", async () => {
    const result = await sendMessage(`${endpoint.origin}/000000000000/orders`);
    expect(result).toEqual({
      MessageId: "m-1",
      MD5OfMessageBody: md5OfMessageBody("héllo"),
      MD5OfMessageAttributes: md5OfMessageAttributes({
        b: { DataType: "Binary", BinaryValue: new Uint8Array([1, 2, 3]) },
      }),
    });
  });

  it("comes back as QueueNotFound when the server answers QueueDoesNotExist", async () => {
    await expect(sendMessage(`${endpoint.origin}/000000000000/missing`)).rejects.toMatchObject({
      code: "QueueNotFound",
      providerCode: "QueueDoesNotExist",
      requestId: "r-1",
    });
  });

  it("comes back as Authentication when signed with the wrong secret", async () => {
    const error = await sendMessage(`${endpoint.origin}/000000000000/orders`, {
      accessKeyId: "AKIDLOCAL",
      secretAccessKey: "wrong",
    }).catch((caught: unknown) => caught);
    expect(QueueError.is(error, "Authentication")).toBe(true);
    expect(error).toMatchObject({ providerCode: "SignatureDoesNotMatch", status: 403 });
  });
});
