import { randomUUID } from "node:crypto";
import { SpanKind, trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import type { QueueClient, ReceivedMessage } from "../../src/index.js";
import { named, only, type Point, parentOf, startSdk, type TestSdk } from "./otel.js";

/** How the shared cases reach one provider. */
export interface TelemetryTarget {
  /** A new client of the provider (the cases make two: a producer's and a consumer's). */
  readonly client: () => Promise<QueueClient>;
  /** The `messaging.system` its spans carry. */
  readonly system: string;
  /** Whether its spans name a server (`server.address`, `server.port`). */
  readonly network: boolean;
}

const BODY = "a body that is never an attribute";

/** Receives one message of `queue`, polling for a few seconds (a broker may take a moment). */
export async function receiveOne(client: QueueClient, queue: string): Promise<ReceivedMessage> {
  for (let i = 0; i < 50; i++) {
    const message = await client.receiveMessage(queue, 200);
    if (message !== null) return message;
  }
  throw new Error(`nothing came on ${queue}`);
}

/** No attribute of any span holds the body. */
function expectNoBody(spans: readonly ReadableSpan[]): void {
  for (const span of spans)
    for (const value of Object.values(span.attributes)) expect(String(value)).not.toContain(BODY);
}

/**
 * The cases every provider runs, with an SDK registered globally for the file: one message's
 * spans and attributes, a consumer's `process` span the child of the `send` span across two
 * clients, a batch's `create` spans and links, and the instruments' values.
 */
export function telemetryCases(target: TelemetryTarget): {
  sdk: () => TestSdk;
  producer: () => QueueClient;
  consumer: () => QueueClient;
  newQueue: () => Promise<string>;
} {
  let sdk: TestSdk;
  let producer: QueueClient;
  let consumer: QueueClient;
  const queues: string[] = [];

  beforeAll(async () => {
    sdk = startSdk();
    producer = await target.client();
    consumer = await target.client();
  });
  afterAll(async () => {
    for (const queue of queues) await producer?.admin.deleteQueue(queue).catch(() => undefined);
    await producer?.close();
    await consumer?.close();
    await sdk?.close();
  });
  beforeEach(() => sdk.exporter.reset());

  async function newQueue(): Promise<string> {
    const queue = `otel-${randomUUID().slice(0, 8)}`;
    queues.push(queue);
    await producer.admin.createQueue(queue);
    sdk.exporter.reset();
    return queue;
  }

  it(`send, receive and complete are spans with the messaging attributes, and the context travels in the message (${target.system})`, async () => {
    const queue = await newQueue();
    const id = await producer.sendMessage(queue, {
      body: BODY,
      correlationId: "order-42",
      attributes: { tenant: "acme" },
    });
    const message = await receiveOne(consumer, queue);
    await consumer.completeMessage(message.receiptHandle);

    const spans = sdk.spans();
    const send = only(spans, `send ${queue}`);
    expect(send.kind).toBe(SpanKind.PRODUCER);
    expect(send.attributes).toMatchObject({
      "messaging.system": target.system,
      "messaging.destination.name": queue,
      "messaging.operation.type": "send",
      "messaging.operation.name": "send",
      "messaging.message.id": id,
      "messaging.message.conversation_id": "order-42",
      "messaging.message.body.size": Buffer.byteLength(BODY),
    });
    if (target.network) {
      expect(["127.0.0.1", "localhost"]).toContain(send.attributes["server.address"]);
      expect(typeof send.attributes["server.port"]).toBe("number");
    }
    expect(message.attributes.tenant).toBe("acme");
    expect(message.attributes.traceparent).toBe(
      `00-${send.spanContext().traceId}-${send.spanContext().spanId}-01`,
    );

    const receive = only(spans, `receive ${queue}`);
    expect(receive.kind).toBe(SpanKind.CLIENT);
    expect(receive.attributes).toMatchObject({
      "messaging.operation.type": "receive",
      "messaging.message.id": message.messageId,
    });
    expect(receive.links.map((link) => link.context.spanId)).toEqual([send.spanContext().spanId]);

    const settle = only(spans, `settle ${queue}`);
    expect(settle.kind).toBe(SpanKind.CLIENT);
    expect(settle.attributes).toMatchObject({
      "messaging.operation.type": "settle",
      "messaging.operation.name": "complete",
    });
    expectNoBody(spans);
  });

  it(`a consumer's process span is the child of the send span of another client (${target.system})`, async () => {
    const queue = await newQueue();
    await producer.sendMessage(queue, BODY);
    const running = consumer.consume(queue, async () => {
      trace.getTracer("the-app").startSpan("handler work").end();
    });
    await expect.poll(() => named(sdk.spans(), `settle ${queue}`).length).toBe(1);
    await running.stop();

    const spans = sdk.spans();
    const send = only(spans, `send ${queue}`);
    const process = only(spans, `process ${queue}`);
    expect(process.kind).toBe(SpanKind.CONSUMER);
    expect(process.spanContext().traceId).toBe(send.spanContext().traceId);
    expect(parentOf(process)).toBe(send.spanContext().spanId);
    expect(process.attributes).toMatchObject({
      "messaging.system": target.system,
      "messaging.operation.type": "process",
    });
    expect(parentOf(only(spans, "handler work"))).toBe(process.spanContext().spanId);
    expect(parentOf(only(spans, `settle ${queue}`))).toBe(process.spanContext().spanId);
  });

  it(`a batch is a create span per message linked from the send span, and a batch handler's span links to each (${target.system})`, async () => {
    const queue = await newQueue();
    await producer.sendMessages(queue, [BODY, BODY, BODY]);
    const creates = named(sdk.spans(), `create ${queue}`);
    expect(creates).toHaveLength(3);
    const send = only(sdk.spans(), `send ${queue}`);
    expect(send.attributes["messaging.batch.message_count"]).toBe(3);
    const createIds = creates.map((span) => span.spanContext().spanId).sort();
    expect(send.links.map((link) => link.context.spanId).sort()).toEqual(createIds);
    for (const create of creates) expect(create.attributes["messaging.operation.type"]).toBe("create");

    const handled: number[] = [];
    const running = consumer.consumeBatches(
      queue,
      async (messages) => {
        handled.push(messages.length);
      },
      { maxBatchSize: 3, maxWaitMs: 2_000 },
    );
    await expect.poll(() => handled.reduce((sum, n) => sum + n, 0)).toBe(3);
    await running.stop();
    const processes = named(sdk.spans(), `process ${queue}`);
    const linked = processes.flatMap((span) => span.links.map((link) => link.context.spanId)).sort();
    expect(linked).toEqual(createIds);
  });

  it(`the instruments count and time each operation (${target.system})`, async () => {
    const queue = await newQueue();
    await producer.sendMessages(queue, [BODY, BODY]);
    let received = 0;
    while (received < 2) {
      const message = await receiveOne(consumer, queue);
      await consumer.completeMessage(message.receiptHandle);
      received++;
    }
    const ofQueue = (points: Point[]) =>
      points.filter((point) => point.attributes["messaging.destination.name"] === queue);
    const sent = ofQueue(await sdk.points("messaging.client.sent.messages"));
    expect(sent).toEqual([
      {
        attributes: expect.objectContaining({
          "messaging.system": target.system,
          "messaging.operation.name": "send",
        }),
        value: 2,
      },
    ]);
    const consumed = ofQueue(await sdk.points("messaging.client.consumed.messages"));
    expect(consumed.reduce((sum, point) => sum + point.value, 0)).toBe(2);
    const durations = ofQueue(await sdk.points("messaging.client.operation.duration"));
    const byName = Object.fromEntries(
      durations.map((point) => [point.attributes["messaging.operation.name"], point.value]),
    );
    expect(byName.send).toBe(1);
    expect(byName.complete).toBe(2);
    expect(byName.receive).toBeGreaterThanOrEqual(1);
    for (const point of durations)
      expect(Object.keys(point.attributes)).not.toContain("messaging.message.id");
  });
  return { sdk: () => sdk, producer: () => producer, consumer: () => consumer, newQueue };
}
