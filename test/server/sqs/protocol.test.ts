import { connect, type Socket } from "node:net";
import {
  CreateQueueCommand,
  ListQueuesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
} from "@aws-sdk/client-sqs";
import { describe, expect, it, vi } from "vitest";
import { SigV4Signer } from "../../../src/aws/index.js";
import { CREDENTIALS, failure, queueName, sendRequest, signedHeaders, useSqsServer } from "./harness.js";

const { server, engine, client, sqs } = useSqsServer();

async function post(
  body: string,
  headers: Record<string, string>,
  sign = true,
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const answer = await sendRequest(server().endpoint, { body, headers }, sign);
  return { ...answer, json: answer.text === "" ? {} : JSON.parse(answer.text) };
}

const json = { "content-type": "application/x-amz-json-1.0" };

describe("SQS server: protocol and signatures", () => {
  it("refuses a request signed with the wrong secret with SignatureDoesNotMatch, an unknown key with InvalidClientTokenId", async () => {
    const wrongSecret = await failure(
      client({ ...CREDENTIALS, secretAccessKey: "not-the-secret" }).send(new ListQueuesCommand({})),
    );
    expect(wrongSecret.name).toBe("SignatureDoesNotMatch");
    expect(wrongSecret.$metadata?.httpStatusCode).toBe(403);
    const unknownKey = await failure(
      client({ accessKeyId: "AKIDOTHER", secretAccessKey: "x" }).send(new ListQueuesCommand({})),
    );
    expect(unknownKey.name).toBe("InvalidClientTokenId");
    expect(await client().send(new CreateQueueCommand({ QueueName: "signed-fine" }))).toHaveProperty(
      "QueueUrl",
    );
  });

  it("refuses unsigned requests and requests whose body changed after signing", async () => {
    const unsigned = await post("{}", { ...json, "x-amz-target": "AmazonSQS.ListQueues" }, false);
    expect(unsigned.status).toBe(403);
    expect(unsigned.headers.get("x-amzn-query-error")).toMatch(/^MissingAuthenticationToken;Sender$/);
    const url = new URL(server().endpoint);
    const headers: Record<string, string> = {
      host: url.host,
      ...json,
      "x-amz-target": "AmazonSQS.ListQueues",
    };
    const signed = new SigV4Signer({ region: "us-east-1", service: "sqs", contentSha256Header: true }).sign(
      { method: "POST", path: "/", headers, body: "{}" },
      CREDENTIALS,
    );
    const response = await fetch(url, {
      method: "POST",
      headers: { ...headers, ...signed.headers },
      body: '{"QueueNamePrefix":"x"}',
    });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { __type: string }).__type).toMatch(/SignatureDoesNotMatch/);
  });

  it("answers unknown operations, bad JSON and wrong content types with the protocol's errors", async () => {
    const unknown = await post("{}", { ...json, "x-amz-target": "AmazonSQS.FlyToTheMoon" });
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get("x-amzn-query-error")).toBe(
      "AWS.SimpleQueueService.UnsupportedOperation;Sender",
    );
    expect(unknown.json.__type).toBe("com.amazonaws.sqs#UnsupportedOperation");
    const malformed = await post("{not json", { ...json, "x-amz-target": "AmazonSQS.ListQueues" });
    expect(malformed.status).toBe(400);
    expect(String(malformed.json.__type)).toContain("SerializationException");
    const text = await post("ListQueues", {
      "content-type": "text/plain",
      "x-amz-target": "AmazonSQS.ListQueues",
    });
    expect(text.status).toBe(415);
    expect(text.json.__type).toContain("UnsupportedMediaType");
    const missing = await post("{}", { ...json, "x-amz-target": "AmazonSQS.SendMessage" });
    expect(missing.status).toBe(400);
    expect(missing.headers.get("x-amzn-query-error")).toBe("MissingParameter;Sender");
    expect(missing.headers.get("x-amzn-requestid")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("refuses an oversized body at once instead of reading it", async () => {
    const huge = "x".repeat(9 * 1024 * 1024);
    const answer = await post(huge, { ...json, "x-amz-target": "AmazonSQS.ListQueues" }, false);
    expect(answer.status).toBe(400);
    expect(answer.headers.get("x-amzn-query-error")).toBe(
      "AWS.SimpleQueueService.BatchRequestTooLong;Sender",
    );
    const after = await client().send(new ListQueuesCommand({}));
    expect(after.$metadata.httpStatusCode).toBe(200);
  });

  it("forgets a client that goes away mid-body or mid-long-poll: the next message goes to the next receiver", async () => {
    const name = queueName("gone");
    const { QueueUrl } = await sqs().send(new CreateQueueCommand({ QueueName: name }));
    const cutShort = await openRequest("ListQueues", '{"QueueNamePrefix":', 200);
    const poll = JSON.stringify({ QueueUrl, WaitTimeSeconds: 20 });
    const polling = await openRequest("ReceiveMessage", poll, poll.length);
    await vi.waitFor(() => expect(engine().waitingReceivers(name)).toBe(1));
    cutShort.destroy();
    polling.destroy();
    await vi.waitFor(() => expect(engine().waitingReceivers(name)).toBe(0));

    const sent = await sqs().send(new SendMessageCommand({ QueueUrl, MessageBody: "after they left" }));
    const received = await sqs().send(new ReceiveMessageCommand({ QueueUrl }));
    expect(received.Messages?.map((message) => message.MessageId)).toEqual([sent.MessageId]);
  });

  it("answers a GET without an Action, signed or not, with an error rather than hanging", async () => {
    const unsigned = await fetch(server().endpoint);
    expect(unsigned.status).toBe(403);
    expect(((await unsigned.json()) as { __type: string }).__type).toContain("MissingAuthenticationToken");
    const get = await sendRequest(server().endpoint, { method: "GET" });
    expect(get.status).toBe(400);
    expect((JSON.parse(get.text) as { __type: string }).__type).toContain("UnsupportedOperation");
  });
});

/**
 * Opens a connection and writes a request's head and `body`, signed for a body of
 * `declaredLength` (which may be longer than what is written), without reading an answer.
 */
async function openRequest(target: string, body: string, declaredLength: number): Promise<Socket> {
  const url = new URL(server().endpoint);
  const headers = signedHeaders(server().endpoint, {
    body,
    headers: {
      "content-type": "application/x-amz-json-1.0",
      "x-amz-target": `AmazonSQS.${target}`,
      "content-length": String(declaredLength),
    },
  });
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  const socket = connect(Number(url.port), url.hostname);
  await new Promise((resolve) => socket.once("connect", resolve));
  socket.write(`POST / HTTP/1.1\r\n${head}\r\n${body}`);
  return socket;
}
