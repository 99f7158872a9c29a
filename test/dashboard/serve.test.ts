// The dashboard on `queue-runtime serve`'s own port, over the server's own store, beside SQS calls
// that stay signed; and the dashboard over a provider that cannot peek (SQS).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ServeHandle, serve } from "../../src/cli/serve-command.js";
import type { DashboardSnapshot } from "../../src/dashboard/dashboard-api.js";
import { createClient, type QueueClient } from "../../src/index.js";
import { type RunningDashboard, startDashboard } from "./fixtures.js";
import { call, change } from "./http-client.js";

let handle: ServeHandle;
let banner: string[];
let endpoint: string;
let sqs: QueueClient;

beforeAll(async () => {
  banner = [];
  handle = (await serve(["--memory", "--port", "0"], (line) => banner.push(line)))!;
  endpoint = handle.server!.endpoint;
  sqs = await sqsClient();
  await sqs.admin.createQueue("orders");
});

/** A client of the server's SQS endpoint, signing with its default credentials; it never creates a queue by naming it. */
function sqsClient(): Promise<QueueClient> {
  return createClient({
    provider: {
      type: "sqs",
      endpoint,
      region: "us-east-1",
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
    },
    createQueues: false,
  });
}

afterAll(async () => {
  await sqs?.close();
  await handle?.stop();
});

/** The token serve printed at start, on its own line. */
function printedToken(): string {
  const line = banner.find((text) => text.startsWith("token: "));
  expect(line, banner.join("\n")).toBeDefined();
  return line!.slice("token: ".length);
}

describe("the dashboard on queue-runtime serve", () => {
  it("is announced at start: its address with the token, and the token on a line of its own", () => {
    const token = printedToken();
    expect(token).toMatch(/^[\w-]{32,}$/);
    expect(banner).toContain(`queue-runtime dashboard: ${endpoint}/?token=${token}`);
  });

  it("answers GET / with the page, unsigned, while SQS calls there stay SQS calls and stay signed", async () => {
    const page = await call(endpoint, "GET", "/");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.text).toContain("queue-runtime");
    const queryCall = await call(endpoint, "GET", "/?Action=ListQueues&Version=2012-11-05");
    expect(queryCall.headers["content-type"]).not.toContain("text/html");
    expect(queryCall.status).toBe(403);
    const jsonCall = await call(endpoint, "POST", "/", {
      headers: { "content-type": "application/x-amz-json-1.0", "x-amz-target": "AmazonSQS.ListQueues" },
      body: "{}",
    });
    expect(jsonCall.status).toBe(403);
    expect(jsonCall.text).toMatch(/MissingAuthenticationToken|signature|IncompleteSignature|credential/i);
  });

  it("shows the server's own queues and sends to them with the printed token", async () => {
    const snapshot = (await call(endpoint, "GET", "/dashboard/api/snapshot")).json as DashboardSnapshot;
    expect(snapshot.provider).toBe("memory");
    expect(snapshot.queues.map((queue) => queue.name)).toContain("orders");
    expect(
      (await call(endpoint, "POST", "/dashboard/api/queues/orders/messages", { body: { body: "x" } })).status,
    ).toBe(403);
    const sent = await change(endpoint, printedToken(), "/dashboard/api/queues/orders/messages", {
      body: "through the dashboard",
    });
    expect(sent.status).toBe(201);
    const received = await sqs.receiveMessage("orders", 5_000);
    expect(received?.text()).toBe("through the dashboard");
    await sqs.completeMessage(received!.receiptHandle);
  });
});

describe("the dashboard over a provider that cannot peek", () => {
  let dashboard: RunningDashboard;

  beforeAll(async () => {
    dashboard = await startDashboard(await sqsClient());
  });

  it("lists the queues and their counts, and says it cannot show their messages", async () => {
    await sqs.sendMessage("orders", "waiting");
    const snapshot = (await call(dashboard.endpoint, "GET", "/dashboard/api/snapshot"))
      .json as DashboardSnapshot;
    expect(snapshot).toMatchObject({ provider: "sqs", peek: false });
    expect(snapshot.queues.find((queue) => queue.name === "orders")).toMatchObject({ active: 1 });
    const messages = await call(dashboard.endpoint, "GET", "/dashboard/api/queues/orders/messages");
    expect(messages.status).toBe(501);
    expect(messages.json).toMatchObject({
      error: {
        code: "Unsupported",
        message: expect.stringContaining("cannot show messages without receiving them"),
      },
    });
  });

  it("still names a queue's dead-letter queue, for its Redrive, with no messages to show", async () => {
    for (const name of ["orders", "orders-dlq"]) {
      const answer = await call(dashboard.endpoint, "GET", `/dashboard/api/queues/${name}/dead-letters`);
      expect(answer.json).toEqual({ queue: "orders-dlq", messages: null, next: null });
    }
  });
});
