import type { MessageBatch, Message as WorkerMessage } from "@cloudflare/workers-types";
import type { SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { cloudflareQueueConsumer, sqsEventHandler } from "../../src/receiving/index.js";
import { orderShipped, receiving } from "./harness.js";
import { STORE_KINDS, sqliteKind } from "./stores.js";

/** A Cloudflare Queues batch as the Workers runtime hands it, recording what each message was answered. */
function cloudflareBatch(queue: string, bodies: unknown[]): { batch: MessageBatch; answers: string[] } {
  const answers: string[] = bodies.map(() => "none");
  const messages = bodies.map(
    (body, index): WorkerMessage => ({
      id: `m-${index}`,
      timestamp: new Date(),
      body,
      attempts: 1,
      ack: () => {
        answers[index] = "ack";
      },
      retry: () => {
        answers[index] = "retry";
      },
    }),
  );
  const batch: MessageBatch = {
    queue,
    messages,
    metadata: { metrics: { backlogCount: 0, backlogBytes: 0 } },
    ackAll: () => answers.fill("ack"),
    retryAll: () => answers.fill("retry"),
  };
  return { batch, answers };
}

/** An SQS event as Lambda delivers it. */
function sqsEvent(queue: string, bodies: string[]): SQSEvent {
  return {
    Records: bodies.map(
      (body, index): SQSRecord => ({
        messageId: `sqs-${index}`,
        receiptHandle: `handle-${index}`,
        body,
        attributes: {
          ApproximateReceiveCount: "1",
          SentTimestamp: "1764590000000",
          SenderId: "AIDAEXAMPLE",
          ApproximateFirstReceiveTimestamp: "1764590000001",
        },
        messageAttributes: {},
        md5OfBody: "",
        eventSource: "aws:sqs",
        eventSourceARN: `arn:aws:sqs:eu-west-1:123456789012:${queue}`,
        awsRegion: "eu-west-1",
      }),
    ),
  };
}

describe.each(STORE_KINDS)("batches a platform pushes ($name store)", (kind) => {
  it("receiveBatch answers an outcome per message: kept, repeat, parked", async () => {
    const setup = await receiving(kind);
    const outcomes = await setup.receiver.receiveBatch("warehouse_queue", [
      { body: orderShipped("p-1") },
      { body: orderShipped("p-1") },
      { body: new TextEncoder().encode("not json") },
      { body: JSON.stringify({ id: 3, type: "unknown" }) },
    ]);
    expect(outcomes).toEqual(["kept", "repeat", "parked", "parked"]);
    expect(setup.handled.map((h) => h.context.eventId)).toEqual(["p-1"]);
  });

  it("receiveBatch refuses a queue the receiver does not read, and a message without a body", async () => {
    const setup = await receiving(kind);
    await expect(setup.receiver.receiveBatch("elsewhere", [])).rejects.toMatchObject({
      code: "QueueNotFound",
    });
    await expect(setup.receiver.receiveBatch("warehouse_queue", [{} as never])).rejects.toMatchObject({
      code: "Validation",
    });
  });

  it("Cloudflare Queues: acks what the store took, JSON bodies decoded by the runtime included", async () => {
    const setup = await receiving(kind);
    const consumer = cloudflareQueueConsumer(setup.receiver);
    const { batch, answers } = cloudflareBatch("warehouse", [
      JSON.parse(orderShipped("cf-1")),
      orderShipped("cf-2"),
      new TextEncoder().encode(orderShipped("cf-3")).buffer,
      "not json",
    ]);
    await consumer(batch);
    expect(answers).toEqual(["ack", "ack", "ack", "ack"]);
    expect(setup.handled.map((h) => h.context.eventId).sort()).toEqual(["cf-1", "cf-2", "cf-3"]);
    expect(await setup.receiver.deliveries.list()).toMatchObject([{ reason: "unreadable" }]);
  });

  it("AWS Lambda: reports as failures only the messages the store could not take", async () => {
    const setup = await receiving(kind);
    const handler: (event: SQSEvent) => Promise<SQSBatchResponse> = sqsEventHandler(setup.receiver);
    const response = await handler(sqsEvent("warehouse", [orderShipped("l-1"), orderShipped("l-1"), "{"]));
    expect(response).toEqual({ batchItemFailures: [] });
    expect(setup.handled.map((h) => h.context.eventId)).toEqual(["l-1"]);
  });
});

describe("batches a store cannot take now", () => {
  it("Cloudflare Queues: each such message is retried, so the queue's dead-letter queue takes one that keeps failing", async () => {
    const errors: unknown[] = [];
    const setup = await receiving(sqliteKind, {
      storeOptions: { busyTimeoutMs: 50 },
      receiver: { onError: (error) => errors.push(error) },
    });
    await setup.store.store.open();
    const Database = (await import("better-sqlite3")).default;
    const other = new Database(setup.store.location);
    other.exec("BEGIN IMMEDIATE");
    const { batch, answers } = cloudflareBatch("warehouse", [orderShipped("cf-1"), "not json"]);
    await cloudflareQueueConsumer(setup.receiver)(batch);
    expect(answers).toEqual(["retry", "retry"]);
    const response = await sqsEventHandler(setup.receiver)(sqsEvent("warehouse", [orderShipped("l-1")]));
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: "sqs-0" }] });
    expect(errors.length).toBeGreaterThan(0);
    other.exec("ROLLBACK");
    other.close();
    expect(await setup.recorded()).toEqual([]);
  });

  it("an event source the receiver does not read is refused, naming it", async () => {
    const setup = await receiving(sqliteKind);
    await expect(sqsEventHandler(setup.receiver)(sqsEvent("other-queue", ["{}"]))).rejects.toMatchObject({
      code: "QueueNotFound",
      message: expect.stringContaining("other-queue"),
    });
    const { batch } = cloudflareBatch("other-queue", ["{}"]);
    await expect(cloudflareQueueConsumer(setup.receiver)(batch)).rejects.toMatchObject({
      code: "QueueNotFound",
    });
  });

  it("an explicit queue overrides the platform's queue name", async () => {
    const setup = await receiving(sqliteKind);
    const response = await sqsEventHandler(setup.receiver, { queue: "warehouse_queue" })(
      sqsEvent("named-otherwise", [orderShipped("x")]),
    );
    expect(response.batchItemFailures).toEqual([]);
    expect(await setup.recorded()).toEqual(["x"]);
  });
});
