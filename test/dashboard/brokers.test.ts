// The dashboard over RabbitMQ and NATS JetStream: the command started on a broker URL, and what
// its API shows and changes there. Each broker's queues live under a prefix of this file's run.
import { describe, expect, it } from "vitest";
import type { DashboardSnapshot, DeadLetterPage } from "../../src/dashboard/dashboard-api.js";
import { createClient, type QueueClient } from "../../src/index.js";
import { removeQueuesAndClose } from "../support/remove-queues.js";
import { printedDashboard, runCli } from "./cli-process.js";
import { afterFile, DEAD_LETTER, startDashboard } from "./fixtures.js";
import { call, change, events } from "./http-client.js";

const BROKERS = [
  { name: "rabbitmq", url: "amqp://guest:guest@127.0.0.1:5672/%2F", prefix: "queuePrefix" },
  { name: "nats", url: "nats://127.0.0.1:4222", prefix: "streamPrefix" },
] as const;

/** The counts of `queue` in a snapshot. */
function countsOf(snapshot: DashboardSnapshot, queue: string) {
  const found = snapshot.queues.find((summary) => summary.name === queue);
  if (found === undefined) throw new Error(`no ${queue} in the snapshot`);
  const { active, inFlight, delayed, deadLettered } = found;
  return { active, inFlight, delayed, deadLettered };
}

/** Waits until `done` holds, checking every 50 ms for up to 10 s. */
async function eventually(what: string, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(BROKERS)("the dashboard on $name", { timeout: 120_000 }, (broker) => {
  /** A URL of the broker under a prefix of its own, with `orders` holding one message and one dead letter. */
  async function brokerStore(): Promise<{ url: string; client: QueueClient }> {
    const url = new URL(broker.url);
    url.searchParams.set(broker.prefix, `dash${process.pid}x${Date.now().toString(36)}-`);
    const client = await createClient(url.toString());
    afterFile(() => removeQueuesAndClose(client));
    await client.admin.createQueue("orders");
    await client.sendMessage("orders", DEAD_LETTER.body);
    const received = await client.receiveMessage("orders", 10_000);
    await client.deadLetterMessage(received!.receiptHandle, DEAD_LETTER.reason, DEAD_LETTER.description);
    await client.sendMessage("orders", '{"order":"o-8"}');
    return { url: url.toString(), client };
  }

  it("starts as a command on the broker URL and names the provider, never the URL", async () => {
    const { url } = await brokerStore();
    const run = runCli(["dashboard", "--url", url, "--port", "0"]);
    try {
      const { endpoint } = await printedDashboard(run);
      const stream = await events(endpoint);
      const snapshot = await stream.next<DashboardSnapshot>("snapshot", () => true);
      stream.close();
      expect(snapshot.provider).toBe(broker.name);
      expect(snapshot.queues.map((queue) => queue.name)).toEqual(["orders", "orders-dlq"]);
      expect(JSON.stringify(snapshot)).not.toContain("guest:guest");
    } finally {
      run.child.kill("SIGTERM");
    }
    expect(await run.exited).toBe(0);
  });

  it("shows counts and dead letters, sends, redrives and purges", async () => {
    const { url, client } = await brokerStore();
    const dashboard = await startDashboard(url);
    const snapshot = (await call(dashboard.endpoint, "GET", "/dashboard/api/snapshot"))
      .json as DashboardSnapshot;
    expect(snapshot.peek).toBe(client.capabilities.peek);
    for (const name of ["orders", "orders-dlq"])
      expect(countsOf(snapshot, name)).toEqual(await client.admin.getQueueStats(name));

    const dead = (await call(dashboard.endpoint, "GET", "/dashboard/api/queues/orders/dead-letters"))
      .json as DeadLetterPage;
    expect(dead.queue).toBe("orders-dlq");
    if (client.capabilities.peek)
      expect(dead.messages).toMatchObject([
        {
          body: DEAD_LETTER.body,
          deadLetter: {
            reason: DEAD_LETTER.reason,
            description: DEAD_LETTER.description,
            sourceQueue: "orders",
          },
        },
      ]);
    else expect(dead.messages).toBeNull();

    const sent = await change(dashboard.endpoint, dashboard.token, "/dashboard/api/queues/orders/messages", {
      body: "sent from the dashboard",
    });
    expect(sent.status).toBe(201);
    const redriven = await change(
      dashboard.endpoint,
      dashboard.token,
      "/dashboard/api/queues/orders-dlq/redrive",
    );
    expect(redriven.json).toEqual({ queue: "orders-dlq", moved: 1 });
    await eventually(
      "three messages on orders",
      async () => (await client.admin.getQueueStats("orders")).active === 3,
    );
    const purged = await change(dashboard.endpoint, dashboard.token, "/dashboard/api/queues/orders/purge");
    expect(purged.json).toEqual({ queue: "orders", purged: 3 });
    expect(await client.admin.getQueueStats("orders")).toMatchObject({ active: 0 });
  });
});
