import { beforeEach, describe, expect, test } from "vitest";
import { createClient, QueueError } from "../../../src/index.js";
import { sqsErrorAnswer, useStubServer } from "./stub-server.js";

const SECRET = "stub-secret-never-shown";
const stub = useStubServer();
const QUEUE_URL = () => `${stub.endpoint()}/000000000000/orders`;

function client(options: { operationMs?: number; maxAttempts?: number } = {}) {
  return createClient({
    provider: {
      type: "sqs",
      endpoint: stub.endpoint(),
      region: "eu-west-1",
      credentials: { accessKeyId: "AKIDSTUB", secretAccessKey: SECRET },
    },
    retryPolicy: { maxAttempts: options.maxAttempts ?? 3, initialDelayMs: 10, maxDelayMs: 50 },
    ...(options.operationMs === undefined ? {} : { timeouts: { operationMs: options.operationMs } }),
  });
}

async function failure(promise: Promise<unknown>): Promise<QueueError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(QueueError);
    return error as QueueError;
  }
  throw new Error("expected the call to fail");
}

/** Answers GetQueueUrl, and everything else with `rest`. */
function withQueue(
  rest: (target: string, body: Record<string, unknown>, nth: number) => ReturnType<typeof sqsErrorAnswer>,
) {
  const counts = new Map<string, number>();
  stub.answer(({ target, body }) => {
    const nth = (counts.get(target) ?? 0) + 1;
    counts.set(target, nth);
    if (target === "GetQueueUrl") return { status: 200, body: { QueueUrl: QUEUE_URL() } };
    return rest(target, body, nth);
  });
}

beforeEach(() => {
  stub.requests.length = 0;
});

describe("requests on the wire", () => {
  test("are AWS JSON 1.0, signed with SigV4 for the region, and the queue URL is looked up once", async () => {
    withQueue(() => ({ status: 200, body: { MessageId: "m-1", MD5OfMessageBody: "x" } }));
    const sqs = await client();
    expect(await sqs.sendMessage("orders", "one")).toBe("m-1");
    expect(await sqs.sendMessage("orders", "two")).toBe("m-1");
    expect(stub.requests.map((request) => request.target)).toEqual([
      "GetQueueUrl",
      "SendMessage",
      "SendMessage",
    ]);
    const send = stub.requests[1]!;
    expect(send.headers["content-type"]).toBe("application/x-amz-json-1.0");
    expect(send.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDSTUB\/\d{8}\/eu-west-1\/sqs\/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-target, Signature=[0-9a-f]{64}$/,
    );
    expect(send.headers.connection).toBe("keep-alive");
    expect(send.body).toEqual({ QueueUrl: QUEUE_URL(), MessageBody: "one" });
    await sqs.close();
  });
});

describe("failures", () => {
  test("throttling and 5xx answers are transient and retried with backoff", async () => {
    withQueue((target, _body, nth) => {
      if (nth === 1) return sqsErrorAnswer(403, "RequestThrottled", "RequestThrottled", "Rate exceeded");
      if (nth === 2) return sqsErrorAnswer(500, "InternalFailure", "InternalFailure", "oops");
      return { status: 200, body: { MessageId: `${target}-ok` } };
    });
    const sqs = await client();
    expect(await sqs.sendMessage("orders", "x")).toBe("SendMessage-ok");
    expect(sqs.metrics.retries).toBe(2);
    await sqs.close();
  });

  test("a non-transient error is not retried, and maps to its code", async () => {
    withQueue(() =>
      sqsErrorAnswer(400, "QueueDoesNotExist", "AWS.SimpleQueueService.NonExistentQueue", "gone"),
    );
    const sqs = await client();
    const error = await failure(sqs.sendMessage("orders", "x"));
    expect(error.code).toBe("QueueNotFound");
    expect(stub.requests.filter((request) => request.target === "SendMessage")).toHaveLength(1);
    await sqs.close();
  });

  test("batch entries report one by one; SQS's own faults are retried, the sender's are not", async () => {
    withQueue((target, body) => {
      // The entry that failed on SQS's side is sent again, alone.
      if (target === "SendMessage") return { status: 200, body: { MessageId: "ok-1-retried" } };
      const entries = body.Entries as { Id: string }[];
      return {
        status: 200,
        body: {
          Successful: [{ Id: entries[0]!.Id, MessageId: "ok-0", MD5OfMessageBody: "x" }],
          Failed: [
            { Id: entries[1]!.Id, SenderFault: false, Code: "InternalError", Message: "try again" },
            { Id: entries[2]!.Id, SenderFault: true, Code: "InvalidParameterValue", Message: "bad" },
          ],
        },
      };
    });
    const sqs = await client();
    const error = await failure(sqs.sendMessages("orders", ["a", "b", "c"]));
    expect(error.code).toBe("PartialBatchFailure");
    expect(error.results?.map((result) => (result.ok ? result.messageId : result.error.code))).toEqual([
      "ok-0",
      "ok-1-retried",
      "Validation",
    ]);
    await sqs.close();
  });

  test("an endpoint that does not answer fails with Timeout after the operation timeout", async () => {
    withQueue(() => null);
    const sqs = await client({ operationMs: 200, maxAttempts: 1 });
    const started = Date.now();
    const error = await failure(sqs.sendMessage("orders", "x"));
    expect(error.code).toBe("Timeout");
    expect(error.isTransient).toBe(true);
    expect(Date.now() - started).toBeLessThan(2_000);
    await sqs.close();
  });

  test("a refused connection is ConnectionFailed, and transient", async () => {
    const sqs = await createClient({
      provider: {
        type: "sqs",
        endpoint: "http://127.0.0.1:1",
        credentials: { accessKeyId: "AKIDSTUB", secretAccessKey: SECRET },
      },
      retryPolicy: { maxAttempts: 1 },
    });
    const error = await failure(sqs.sendMessage("orders", "x"));
    expect(error.code).toBe("ConnectionFailed");
    expect(error.isTransient).toBe(true);
    expect(`${error.message} ${String(error.cause)}`).not.toContain(SECRET);
    await sqs.close();
  });
});

describe("long polls", () => {
  test("a receive's request may take its wait plus the operation timeout", async () => {
    let askedToWaitMs = 0;
    stub.answer(({ target, body }) => {
      if (target === "GetQueueUrl") return { status: 200, body: { QueueUrl: QUEUE_URL() } };
      if (target === "GetQueueAttributes")
        return { status: 200, body: { Attributes: { VisibilityTimeout: "30" } } };
      askedToWaitMs = Number(body.WaitTimeSeconds) * 1000;
      return null;
    });
    const sqs = await client({ operationMs: 300, maxAttempts: 1 });
    const started = Date.now();
    const error = await failure(sqs.receiveMessage("orders", 1_000));
    expect(askedToWaitMs).toBe(1_000);
    expect(error.code).toBe("Timeout");
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_250);
    await sqs.close();
  });

  test("close() ends a long poll at once, which resolves empty", async () => {
    stub.answer(({ target }) => {
      if (target === "GetQueueUrl") return { status: 200, body: { QueueUrl: QUEUE_URL() } };
      if (target === "GetQueueAttributes")
        return { status: 200, body: { Attributes: { VisibilityTimeout: "30" } } };
      return null;
    });
    const sqs = await client();
    const waiting = sqs.receiveMessage("orders", 20_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = Date.now();
    await sqs.close();
    expect(await waiting).toBeNull();
    expect(Date.now() - started).toBeLessThan(500);
  });
});
