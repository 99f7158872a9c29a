import { inspect } from "node:util";
import { afterEach, describe, expect, test } from "vitest";
import {
  createClient,
  DEAD_LETTER_ATTRIBUTES,
  type QueueClient,
  QueueError,
  ReceiptHandle,
} from "../../../src/index.js";
import { resolveEndpoint } from "../../../src/providers/sqs/endpoint.js";
import { CREDENTIALS, useSqsServer } from "./server.js";

const server = useSqsServer();
const clients: QueueClient[] = [];
let queues = 0;

async function client(createQueues = false): Promise<QueueClient> {
  const made = await createClient({
    provider: { type: "sqs", endpoint: server.endpoint(), region: "us-east-1", credentials: CREDENTIALS },
    createQueues,
  });
  clients.push(made);
  return made;
}

const name = (fifo = false) => `provider-${++queues}${fifo ? ".fifo" : ""}`;

async function failure(promise: Promise<unknown>): Promise<QueueError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(QueueError);
    return error as QueueError;
  }
  throw new Error("expected the call to fail");
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((made) => made.close()));
});

describe("configuration", () => {
  test("the URL form reaches the server, with credentials and region from the environment", async () => {
    const saved = { ...process.env };
    process.env.AWS_ACCESS_KEY_ID = CREDENTIALS.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = CREDENTIALS.secretAccessKey;
    try {
      const made = await createClient(`sqs://${new URL(server.endpoint()).host}?region=us-east-1`);
      clients.push(made);
      expect(made.providerType).toBe("sqs");
      const queue = name();
      await made.admin.createQueue(queue);
      await made.sendMessage(queue, "from a URL");
      expect((await made.receiveMessage(queue))?.text()).toBe("from a URL");
    } finally {
      process.env = saved;
    }
  });

  test("sqs: alone means AWS itself, in the region of the environment", () => {
    expect(resolveEndpoint({ type: "sqs" }, { AWS_REGION: "eu-west-1" }).url.href).toBe(
      "https://sqs.eu-west-1.amazonaws.com/",
    );
    expect(resolveEndpoint({ type: "sqs" }, { AWS_DEFAULT_REGION: "ap-south-1" }).region).toBe("ap-south-1");
    expect(resolveEndpoint({ type: "sqs", endpoint: "http://127.0.0.1:9324" }, {}).region).toBe("us-east-1");
    expect(() => resolveEndpoint({ type: "sqs" }, {})).toThrow(
      expect.objectContaining({ code: "Configuration" }),
    );
    expect(() => resolveEndpoint({ type: "sqs", endpoint: "http://user:pw@host" }, {})).toThrow(
      expect.objectContaining({ code: "Configuration" }),
    );
  });

  test("no secret shows in inspect or JSON of the client, or in an authentication error", async () => {
    const made = await client();
    expect(inspect(made, { depth: 10 })).not.toContain(CREDENTIALS.secretAccessKey);
    const wrong = await createClient({
      provider: {
        type: "sqs",
        endpoint: server.endpoint(),
        credentials: { accessKeyId: CREDENTIALS.accessKeyId, secretAccessKey: "a-wrong-secret" },
      },
    });
    clients.push(wrong);
    const error = await failure(wrong.sendMessage("anything", "x"));
    expect(error.code).toBe("Authentication");
    const shown = `${error.message} ${inspect(error, { depth: 10 })}`;
    expect(shown).not.toContain("a-wrong-secret");
    expect(shown).not.toContain(CREDENTIALS.secretAccessKey);
  });
});

describe("administration", () => {
  test("createQueue maps options to attributes and points a redrive policy at <name>-dlq", async () => {
    const sqs = await client();
    const queue = name();
    const info = await sqs.admin.createQueue(queue, {
      lockDurationMs: 2_500,
      maxDeliveryCount: 4,
      defaultDelayMs: 1_000,
    });
    expect(info).toMatchObject({
      lockDurationMs: 3_000,
      maxDeliveryCount: 4,
      deadLetterQueue: `${queue}-dlq`,
    });
    expect(await sqs.admin.getQueue(queue)).toMatchObject({
      name: queue,
      fifo: false,
      lockDurationMs: 3_000,
      maxDeliveryCount: 4,
      deadLetterQueue: `${queue}-dlq`,
      defaultDelayMs: 1_000,
      deduplicationWindowMs: 0,
    });
    expect(await sqs.admin.deadLetterQueueOf(queue)).toBe(`${queue}-dlq`);
    expect(await sqs.admin.listQueues(queue)).toEqual([queue, `${queue}-dlq`]);
    expect((await failure(sqs.admin.createQueue(queue))).code).toBe("QueueAlreadyExists");
  });

  test("FIFO queues are the .fifo ones; what SQS cannot do is refused", async () => {
    const sqs = await client();
    expect((await failure(sqs.admin.createQueue(name(), { fifo: true }))).code).toBe("Validation");
    expect((await failure(sqs.admin.createQueue("has.dot"))).code).toBe("Validation");
    expect((await failure(sqs.admin.createQueue(name(), { deduplicationWindowMs: 60_000 }))).code).toBe(
      "Unsupported",
    );
    const fifo = name(true);
    expect(await sqs.admin.createQueue(fifo)).toMatchObject({ fifo: true, deduplicationWindowMs: 300_000 });
    expect((await sqs.admin.getQueue(fifo))?.deadLetterQueue).toBe(fifo.replace(".fifo", "-dlq.fifo"));
  });

  test("stats count the dead-letter queue; purge and delete work on the queue", async () => {
    const sqs = await client();
    const queue = name();
    await sqs.admin.createQueue(queue);
    await sqs.sendMessages(queue, ["a", "b", "c"]);
    await sqs.receiveMessage(queue);
    expect(await sqs.admin.getQueueStats(queue)).toEqual({
      active: 2,
      inFlight: 1,
      delayed: 0,
      deadLettered: 0,
    });
    expect(await sqs.admin.purgeQueue(queue)).toBe(3);
    await sqs.admin.deleteQueue(queue);
    expect(await sqs.admin.getQueue(queue)).toBeNull();
    expect((await failure(sqs.sendMessage(queue, "x"))).code).toBe("QueueNotFound");
  });
});

describe("messages", () => {
  test("a message id of the sender's own is kept; delays round up to whole seconds", async () => {
    const sqs = await client();
    const queue = name();
    await sqs.admin.createQueue(queue);
    expect(await sqs.sendMessage(queue, { body: "mine", messageId: "order-42" })).toBe("order-42");
    expect((await sqs.receiveMessage(queue))?.messageId).toBe("order-42");
    await sqs.sendMessage(queue, { body: "later", delayMs: 10 });
    expect(await sqs.receiveMessage(queue)).toBeNull();
    expect((await sqs.admin.getQueueStats(queue)).delayed).toBe(1);
  });

  test("what SQS cannot carry fails before anything is sent", async () => {
    const sqs = await client();
    const queue = name();
    const fifo = name(true);
    await sqs.admin.createQueue(queue);
    await sqs.admin.createQueue(fifo);
    expect((await failure(sqs.sendMessage(queue, { body: "x", timeToLiveMs: 1_000 }))).code).toBe(
      "Unsupported",
    );
    expect((await failure(sqs.sendMessage(fifo, "no session"))).code).toBe("Validation");
    expect((await failure(sqs.sendMessage(fifo, { body: "x", sessionId: "s", delayMs: 1_000 }))).code).toBe(
      "Unsupported",
    );
    expect((await failure(sqs.sendMessage(queue, { body: "x", attributes: { "qr.x": "y" } }))).code).toBe(
      "Validation",
    );
    expect(await sqs.admin.getQueueStats(queue)).toMatchObject({ active: 0 });
  });

  test("the standard client's completes of one moment travel as one DeleteMessageBatch", async () => {
    const sqs = await client();
    const queue = name();
    await sqs.admin.createQueue(queue);
    await sqs.sendMessages(
      queue,
      Array.from({ length: 10 }, (_, i) => `m${i}`),
    );
    const batch = await sqs.receiveMessages(queue, 10);
    expect(batch).toHaveLength(10);
    const settled = await Promise.allSettled([
      ...batch.map((message) => sqs.completeMessage(message.receiptHandle)),
      sqs.completeMessage(batch[0]!.receiptHandle),
    ]);
    expect(settled.filter((outcome) => outcome.status === "fulfilled")).toHaveLength(10);
    const rejected = settled.find((outcome) => outcome.status === "rejected") as PromiseRejectedResult;
    expect((rejected.reason as QueueError).code).toBe("InvalidReceipt");
    expect(await sqs.admin.getQueueStats(queue)).toMatchObject({ active: 0, inFlight: 0 });
  });
});

describe("queues made on first use", () => {
  test("with createQueues a send makes its queue; a receive makes none and waits for that send", async () => {
    const reader = await client(true);
    const writer = await client(true);
    const queue = name();
    expect(await reader.receiveMessages(queue, 10, 0)).toEqual([]);
    expect((await failure(reader.admin.getQueueStats(queue))).code).toBe("QueueNotFound");
    expect((await failure(reader.acceptSession(`${queue}.fifo`, undefined, 0))).code).toBe(
      "NoSessionAvailable",
    );
    expect((await failure(reader.acceptSession(`${queue}.fifo`, "s"))).code).toBe("QueueNotFound");
    const waiting = reader.receiveMessage(queue, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await reader.admin.getQueue(queue)).toBeNull();
    await writer.sendMessage(queue, "made by this send");
    expect((await waiting)?.text()).toBe("made by this send");
  });
});

describe("dead letters", () => {
  test("without a dead-letter queue, dead-lettering fails with Unsupported and the message stays", async () => {
    const sqs = await client();
    const queue = name();
    await sqs.admin.createQueue(queue, { deadLetterQueue: null });
    await sqs.sendMessage(queue, "precious");
    const message = await sqs.receiveMessage(queue);
    expect((await failure(sqs.deadLetterMessage(message!.receiptHandle, "Poison"))).code).toBe("Unsupported");
    await sqs.abandonMessage(message!.receiptHandle);
    expect((await sqs.receiveMessage(queue))?.text()).toBe("precious");
  });

  test("a receipt from another client cannot be dead-lettered (SQS cannot read it back); the message stays", async () => {
    const receiver = await client();
    const other = await client();
    const queue = name();
    await receiver.admin.createQueue(queue);
    await receiver.sendMessage(queue, { body: "kept", attributes: { a: "1" } });
    const message = await receiver.receiveMessage(queue);
    const parsed = ReceiptHandle.parse(String(message!.receiptHandle));
    expect((await failure(other.deadLetterMessage(parsed, "Poison"))).code).toBe("Unsupported");
    await receiver.deadLetterMessage(message!.receiptHandle, "Poison", "from the receiver");
    const dead = await receiver.receiveMessage(await receiver.admin.deadLetterQueueOf(queue));
    expect(dead?.attributes).toEqual({
      a: "1",
      [DEAD_LETTER_ATTRIBUTES.reason]: "Poison",
      [DEAD_LETTER_ATTRIBUTES.description]: "from the receiver",
      [DEAD_LETTER_ATTRIBUTES.sourceQueue]: queue,
    });
  });

  test("redrive sends messages SQS moved by itself back to their source, and to a target when given", async () => {
    const sqs = await client();
    const queue = name();
    const target = name();
    await sqs.admin.createQueue(queue, { maxDeliveryCount: 1 });
    await sqs.admin.createQueue(target, { deadLetterQueue: null });
    const id = await sqs.sendMessage(queue, "twice");
    const first = await sqs.receiveMessage(queue);
    await sqs.abandonMessage(first!.receiptHandle);
    expect(await sqs.receiveMessage(queue)).toBeNull();
    const deadLetterQueue = await sqs.admin.deadLetterQueueOf(queue);
    expect(await sqs.admin.redrive(deadLetterQueue)).toBe(1);
    const back = await sqs.receiveMessage(queue, 1_000);
    expect(back?.messageId).toBe(id);
    await sqs.deadLetterMessage(back!.receiptHandle, "Again");
    expect(await sqs.admin.redrive(deadLetterQueue, target)).toBe(1);
    expect((await sqs.receiveMessage(target, 1_000))?.text()).toBe("twice");
  });
});

describe("sessions on FIFO message groups", () => {
  test("standard queues have none", async () => {
    const sqs = await client();
    const queue = name();
    await sqs.admin.createQueue(queue);
    expect((await failure(sqs.acceptSession(queue))).code).toBe("Unsupported");
  });

  test("messages of other groups received while looking for one are visible again at once", async () => {
    const sqs = await client();
    const other = await client();
    const queue = name(true);
    await sqs.admin.createQueue(queue);
    await sqs.sendMessages(queue, [
      { body: "a-1", sessionId: "a" },
      { body: "a-2", sessionId: "a" },
      { body: "b-1", sessionId: "b" },
    ]);
    const session = await sqs.acceptSession(queue, "b");
    expect((await other.receiveMessages(queue, 10)).map((message) => message.text())).toEqual(["a-1", "a-2"]);
    expect((await session.receiveMessage())?.text()).toBe("b-1");
  });

  test("closing a session makes the messages it holds visible again at once", async () => {
    const sqs = await client();
    const other = await client();
    const queue = name(true);
    await sqs.admin.createQueue(queue);
    await sqs.sendMessages(queue, [
      { body: "1", sessionId: "s" },
      { body: "2", sessionId: "s" },
    ]);
    const session = await sqs.acceptSession(queue);
    expect((await session.receiveMessage())?.text()).toBe("1");
    await session.closeSession();
    expect((await other.receiveMessages(queue, 10)).map((message) => message.text())).toEqual(["1", "2"]);
  });

  test("renewSessionLock extends the locks of what the session holds", async () => {
    const sqs = await client();
    const queue = name(true);
    await sqs.admin.createQueue(queue, { lockDurationMs: 1_000 });
    await sqs.sendMessage(queue, { body: "slow", sessionId: "s" });
    const session = await sqs.acceptSession(queue);
    const before = session.sessionExpiresAt.getTime();
    await new Promise((resolve) => setTimeout(resolve, 600));
    const renewed = await session.renewSessionLock();
    expect(renewed.getTime()).toBeGreaterThan(before);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(await sqs.receiveMessage(queue)).toBeNull();
    expect((await session.receiveMessage())?.text()).toBe("slow");
    expect((await failure(session.getSessionState())).code).toBe("Unsupported");
  });
});
