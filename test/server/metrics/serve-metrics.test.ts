// GET /metrics on `queue-runtime serve --servicebus`: the SQS port and the Service Bus
// administration port answer the process's metrics, the queues' real counts after SQS and AMQP
// traffic (a topic's subscription included), and every protocol's requests.
import { ServiceBusClient } from "@azure/service-bus";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServeHandle, serve } from "../../../src/cli/serve-command.js";
import { createClient, type QueueClient } from "../../../src/index.js";
import { belongsToTopic, SUBSCRIPTION_DEAD_LETTERS } from "../../../src/rules/topic-records.js";
import { ServiceBusAdminServer } from "../../../src/server/servicebus/admin/admin-server.js";
import { call } from "../../dashboard/http-client.js";
import { adminClientFor } from "../servicebus/admin-client.js";
import { EMULATOR_KEY, QUICK } from "../servicebus/harness.js";
import { type Exposition, samplesOf, sampleValue } from "./prometheus-parse.js";
import { messagesGauge, scrape } from "./scrape.js";

let handle: ServeHandle;
let sqsEndpoint: string;
let adminEndpoint: string;
let sqs: QueueClient;
let bus: ServiceBusClient;

beforeAll(async () => {
  handle = (await serve(
    ["--memory", "--port", "0", "--servicebus", "--amqp-port", "0", "--admin-port", "0"],
    () => undefined,
  ))!;
  sqsEndpoint = handle.server!.endpoint;
  adminEndpoint = handle.serviceBus!.admin.endpoint;
  sqs = await createClient({
    provider: {
      type: "sqs",
      endpoint: sqsEndpoint,
      region: "us-east-1",
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
    },
    createQueues: false,
  });
  bus = new ServiceBusClient(handle.serviceBus!.amqp.connectionString(), QUICK);

  // Over SQS: three sent to orders, one of them received and left in flight.
  await sqs.admin.createQueue("orders");
  for (const body of ["a", "b", "c"]) await sqs.sendMessage("orders", body);
  expect(await sqs.receiveMessage("orders", 1_000)).not.toBeNull();
  await expect(sqs.sendMessage("missing", "x")).rejects.toThrow();

  // Over the administration API and AMQP: a queue with a dead letter, a topic whose subscription has one.
  const admin = adminClientFor(adminEndpoint, EMULATOR_KEY);
  await admin.createQueue("payments");
  await admin.createTopic("events");
  await admin.createSubscription("events", "audit");
  await bus.createSender("payments").sendMessages([{ body: "p1" }, { body: "p2" }]);
  const payments = bus.createReceiver("payments");
  const [payment] = await payments.receiveMessages(1, { maxWaitTimeInMs: 2_000 });
  await payments.deadLetterMessage(payment!, { deadLetterReason: "Bad", deadLetterErrorDescription: "bad" });
  await bus.createSender("events").sendMessages([{ body: "e1" }, { body: "e2" }, { body: "e3" }]);
  const audit = bus.createReceiver("events", "audit");
  const events = await audit.receiveMessages(2, { maxWaitTimeInMs: 2_000 });
  expect(events).toHaveLength(2);
  await audit.completeMessage(events[0]!);
  await audit.deadLetterMessage(events[1]!, { deadLetterReason: "Bad", deadLetterErrorDescription: "bad" });
});

afterAll(async () => {
  await bus?.close();
  await sqs?.close();
  await handle?.stop();
});

/** Each queue's counts as the engine reads them, subscriptions' dead-letter queues aside (the subscription's dead_lettered). */
function engineCounts(): Map<
  string,
  { active: number; inFlight: number; delayed: number; deadLettered: number }
> {
  return new Map(
    handle.engine
      .listQueues()
      .map((queue) => queue.name)
      .filter((name) => !(name.endsWith(SUBSCRIPTION_DEAD_LETTERS) && belongsToTopic(name)))
      .map((name) => [name, handle.engine.stats(name)]),
  );
}

describe("GET /metrics on queue-runtime serve", () => {
  it("gives every queue's and subscription's active, in-flight, delayed and dead-lettered counts as the engine holds them", async () => {
    for (const endpoint of [sqsEndpoint, adminEndpoint]) {
      const exposition = await scrape(endpoint);
      const counts = engineCounts();
      for (const [queue, stats] of counts) {
        expect([queue, messagesGauge(exposition, queue, "active")]).toEqual([queue, stats.active]);
        expect([queue, messagesGauge(exposition, queue, "in_flight")]).toEqual([queue, stats.inFlight]);
        expect([queue, messagesGauge(exposition, queue, "delayed")]).toEqual([queue, stats.delayed]);
        expect([queue, messagesGauge(exposition, queue, "dead_lettered")]).toEqual([
          queue,
          stats.deadLettered,
        ]);
      }
      expect(samplesOf(exposition, "queue_runtime_queue_messages")).toHaveLength(counts.size * 4);
      expect(sampleValue(exposition, "queue_runtime_queues")).toBe(counts.size);
      expect([
        messagesGauge(exposition, "orders", "active"),
        messagesGauge(exposition, "orders", "in_flight"),
      ]).toEqual([2, 1]);
      expect([
        messagesGauge(exposition, "payments", "active"),
        messagesGauge(exposition, "payments", "dead_lettered"),
      ]).toEqual([1, 1]);
      const audit = samplesOf(exposition, "queue_runtime_queue_messages", {
        topic: "events",
        subscription: "audit",
      });
      expect(Object.fromEntries(audit.map((sample) => [sample.labels.state, sample.value]))).toEqual({
        active: 1,
        in_flight: 0,
        delayed: 0,
        dead_lettered: 1,
      });
    }
  });

  it("counts every protocol's requests by operation and outcome, on either port", async () => {
    const exposition = await scrape(adminEndpoint);
    const count = (labels: Record<string, string>) =>
      samplesOf(exposition, "queue_runtime_requests_total", labels).reduce(
        (sum, sample) => sum + sample.value,
        0,
      );
    expect(count({ api: "sqs", operation: "SendMessage", outcome: "ok" })).toBe(3);
    expect(count({ api: "sqs", operation: "ReceiveMessage", outcome: "ok" })).toBe(1);
    expect(count({ api: "sqs", outcome: "QueueDoesNotExist" })).toBeGreaterThanOrEqual(1);
    expect(count({ api: "servicebus_admin", operation: "PUT entity", outcome: "ok" })).toBe(2);
    expect(count({ api: "servicebus_admin", operation: "PUT subscription", outcome: "ok" })).toBe(1);
    expect(count({ api: "servicebus_amqp", operation: "put-token", outcome: "ok" })).toBeGreaterThanOrEqual(
      1,
    );
    expect(count({ api: "servicebus_amqp", operation: "send", outcome: "ok" })).toBe(1);
    expect(count({ api: "servicebus_amqp", operation: "publish", outcome: "ok" })).toBe(1);
    expect(count({ api: "servicebus_amqp", operation: "complete", outcome: "ok" })).toBe(1);
    expect(count({ api: "servicebus_amqp", operation: "dead_letter", outcome: "ok" })).toBe(2);
    const refused = await call(adminEndpoint, "GET", "/$Resources/Queues");
    expect(refused.status).toBe(401);
    const after = await scrape(sqsEndpoint);
    expect(
      sampleValue(after, "queue_runtime_requests_total", {
        api: "servicebus_admin",
        operation: "GET queues",
        outcome: "Authentication",
      }),
    ).toBe(1);
  });

  it("times requests in a histogram per operation whose buckets grow with each request", async () => {
    const send = { api: "sqs", operation: "SendMessage" };
    const before = await scrape(sqsEndpoint);
    await sqs.sendMessage("orders", "d");
    const after = await scrape(sqsEndpoint);
    for (const exposition of [before, after]) {
      const buckets = samplesOf(exposition, "queue_runtime_request_duration_seconds_bucket", send).map(
        (bucket) => bucket.value,
      );
      expect(buckets).toEqual(buckets.toSorted((a, b) => a - b));
      expect(buckets.at(-1)).toBe(
        sampleValue(exposition, "queue_runtime_request_duration_seconds_count", send),
      );
      expect(buckets.at(-1)).toBe(
        sampleValue(exposition, "queue_runtime_requests_total", { ...send, outcome: "ok" }),
      );
    }
    const total = (exposition: Exposition) =>
      sampleValue(exposition, "queue_runtime_request_duration_seconds_bucket", { ...send, le: "+Inf" });
    expect(total(after)).toBe(total(before) + 1);
    expect(sampleValue(after, "queue_runtime_request_duration_seconds_sum", send)).toBeGreaterThan(
      sampleValue(before, "queue_runtime_request_duration_seconds_sum", send),
    );
    expect(messagesGauge(after, "orders", "active")).toBe(3);
  });

  it("answers unsigned on loopback, refuses a request addressed to another host name, and leaves SQS calls and signed admin calls alone", async () => {
    for (const endpoint of [sqsEndpoint, adminEndpoint]) {
      const rebound = await call(endpoint, "GET", "/metrics", { headers: { host: "attacker.example" } });
      expect(rebound.status).toBe(403);
      expect(rebound.text).not.toContain("queue_runtime");
      const head = await call(endpoint, "HEAD", "/metrics");
      expect([head.status, head.text]).toEqual([200, ""]);
    }
    // A GET naming an Action is an SQS call, and unsigned it is refused as SQS refuses it.
    const action = await call(sqsEndpoint, "GET", "/metrics?Action=ListQueues&Version=2012-11-05");
    expect(action.status).toBe(403);
    expect(action.text).not.toContain("queue_runtime");
    // A signed request for /metrics is the API's: the entity named metrics, which does not exist.
    const signed = await call(adminEndpoint, "GET", "/metrics", {
      headers: { authorization: "SharedAccessSignature sr=x&sig=y&se=1&skn=z" },
    });
    expect(signed.status).toBe(401);
  });

  it("answers any host name when the server listens beyond loopback, as the dashboard does", async () => {
    const server = await ServiceBusAdminServer.start({
      engine: handle.engine,
      host: "0.0.0.0",
      port: 0,
      sasKey: null,
    });
    try {
      const exposition = await scrape(`http://127.0.0.1:${server.port}`, "queues.internal:5300");
      expect(messagesGauge(exposition, "orders", "in_flight")).toBe(1);
    } finally {
      await server.close();
    }
  });
});
