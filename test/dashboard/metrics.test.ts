// GET /metrics on `queue-runtime dashboard`: Prometheus text of the provider's queues' and
// subscriptions' real counts, under the dashboard's own rule for reads (loopback names only while
// it listens on loopback).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Dashboard } from "../../src/dashboard/dashboard.js";
import { DashboardServer } from "../../src/dashboard/dashboard-server.js";
import { createClient, type QueueClient } from "../../src/index.js";
import { samplesOf, sampleValue } from "../server/metrics/prometheus-parse.js";
import { messagesGauge, scrape } from "../server/metrics/scrape.js";
import { call } from "./http-client.js";

let client: QueueClient;
const servers: DashboardServer[] = [];

/** The dashboard over `client` on a free loopback port. */
async function dashboardAt(loopbackOnly: boolean): Promise<string> {
  const server = await DashboardServer.start(
    new Dashboard({ client, token: "t".repeat(43), loopbackOnly }),
    "127.0.0.1",
    0,
  );
  servers.push(server);
  return server.endpoint;
}

beforeAll(async () => {
  client = await createClient("memory:");
  await client.admin.createQueue("orders", { maxDeliveryCount: 3 });
  await client.sendMessages("orders", [{ body: "a" }, { body: "b" }, { body: "c" }]);
  await client.sendMessage("orders", { body: "later", delayMs: 60_000 });
  const [first, second] = await client.receiveMessages("orders", 2);
  await client.deadLetterMessage(second!.receiptHandle, "Bad");
  expect(first).toBeDefined();
  await client.admin.createTopic("events");
  await client.admin.createSubscription("events", "audit");
  await client.publishMessages("events", [{ body: "e1" }, { body: "e2" }]);
  const audit = await client.receiveMessage("events/subscriptions/audit");
  await client.deadLetterMessage(audit!.receiptHandle, "Bad");
});

afterAll(async () => {
  for (const server of servers) await server.close();
  await client?.close();
});

describe("GET /metrics on queue-runtime dashboard", () => {
  it("gives each queue's and subscription's counts as the provider reads them", async () => {
    const exposition = await scrape(await dashboardAt(true));
    const states = {
      active: "active",
      inFlight: "in_flight",
      delayed: "delayed",
      deadLettered: "dead_lettered",
    } as const;
    const queues = [...(await client.admin.listQueues()), "events/subscriptions/audit"];
    for (const queue of queues) {
      const stats = await client.admin.getQueueStats(queue);
      for (const [field, state] of Object.entries(states)) {
        const value = messagesGauge(exposition, queue, state);
        expect([queue, state, value]).toEqual([queue, state, stats[field as keyof typeof states]]);
      }
    }
    expect(
      Object.fromEntries(
        samplesOf(exposition, "queue_runtime_queue_messages", { queue: "orders" }).map((sample) => [
          sample.labels.state,
          sample.value,
        ]),
      ),
    ).toEqual({ active: 1, in_flight: 1, delayed: 1, dead_lettered: 1 });
    expect(
      sampleValue(exposition, "queue_runtime_queue_messages", {
        queue: "events/subscriptions/audit",
        topic: "events",
        subscription: "audit",
        state: "dead_lettered",
      }),
    ).toBe(1);
    expect(sampleValue(exposition, "queue_runtime_queues")).toBe(queues.length);
  });

  it("refuses a request addressed to another host name while on loopback, and answers it when told it may", async () => {
    const guarded = await call(await dashboardAt(true), "GET", "/metrics", {
      headers: { host: "attacker.example" },
    });
    expect(guarded.status).toBe(403);
    expect(guarded.text).not.toContain("orders");
    const open = await scrape(await dashboardAt(false), "dashboard.internal");
    expect(messagesGauge(open, "orders", "active")).toBe(1);
  });
});
