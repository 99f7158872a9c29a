// The dashboard over HTTP, as its page and anyone else on the machine reach it: what it shows,
// what it changes with the token, and what it refuses without it.
import { beforeAll, describe, expect, it } from "vitest";
import { TOKEN_HEADER } from "../../src/dashboard/access.js";
import type { DashboardSnapshot, MessagePage } from "../../src/dashboard/dashboard-api.js";
import { createClient, type QueueClient, subscriptionPath } from "../../src/index.js";
import {
  afterFile,
  DEAD_LETTER,
  queueStore,
  type ReceiverItems,
  type RunningDashboard,
  receivingStore,
  scratchFile,
  startDashboard,
} from "./fixtures.js";
import { call, change, events } from "./http-client.js";

/** The counts of `queue` in a snapshot. */
function countsOf(snapshot: DashboardSnapshot, queue: string) {
  const found = snapshot.queues.find((summary) => summary.name === queue);
  expect(found, `${queue} is listed`).toBeDefined();
  const { active, inFlight, delayed, deadLettered } = found!;
  return { active, inFlight, delayed, deadLettered };
}

/** The dashboard's snapshot, read over HTTP. */
async function snapshotOf(dashboard: RunningDashboard): Promise<DashboardSnapshot> {
  const answer = await call(dashboard.endpoint, "GET", "/dashboard/api/snapshot");
  expect(answer.status).toBe(200);
  return answer.json as DashboardSnapshot;
}

/** A client of the same store, as another process of the application would have. */
async function storeClient(url: string): Promise<QueueClient> {
  const client = await createClient(url);
  afterFile(() => client.close());
  return client;
}

describe("the dashboard over a sqlite store", () => {
  let url: string;
  let dashboard: RunningDashboard;
  let items: ReceiverItems;

  beforeAll(async () => {
    url = await queueStore();
    const receiving = await receivingStore();
    items = receiving.items;
    dashboard = await startDashboard(url, { receiving: receiving.path });
  }, 60_000);

  it("answers / with the page, which loads only its own script and style", async () => {
    const page = await call(dashboard.endpoint, "GET", "/");
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(page.headers["content-security-policy"]).toContain("default-src 'none'");
    expect(page.headers["content-security-policy"]).toContain("script-src 'self'");
    const script = await call(dashboard.endpoint, "GET", "/dashboard/assets/dashboard.js");
    const style = await call(dashboard.endpoint, "GET", "/dashboard/assets/dashboard.css");
    expect(script.status).toBe(200);
    expect(style.status).toBe(200);
    expect(page.text).toContain('src="/dashboard/assets/dashboard.js"');
    // Nothing comes from the network: no address of another origin, no import, no web font.
    for (const text of [page.text, script.text, style.text]) {
      expect(text).not.toMatch(/https?:\/\//);
      expect(text).not.toMatch(/@import|@font-face|url\(/);
    }
    expect(script.text).not.toContain("innerHTML");
  });

  it("never sends the token in the page or a read, whether the address carried it or not", async () => {
    const reads = await Promise.all(
      [
        "/",
        `/?token=${dashboard.token}`,
        "/dashboard/assets/dashboard.js",
        "/dashboard/api/snapshot",
        "/dashboard/api/queues/orders/messages",
        "/dashboard/api/queues/orders/dead-letters",
      ].map((path) => call(dashboard.endpoint, "GET", path)),
    );
    for (const read of reads) {
      expect(read.status).toBe(200);
      expect(read.text).not.toContain(dashboard.token);
    }
  });

  it("lists every queue, dead-letter queues included, with the counts admin.getQueueStats gives", async () => {
    const snapshot = await snapshotOf(dashboard);
    expect(snapshot.provider).toBe("sqlite");
    expect(snapshot.peek).toBe(true);
    expect(snapshot.queues.map((queue) => queue.name)).toEqual(["orders", "orders-dlq"]);
    for (const name of ["orders", "orders-dlq"])
      expect(countsOf(snapshot, name)).toEqual(await dashboard.client.admin.getQueueStats(name));
    expect(snapshot.queues[0]).toMatchObject({ deadLetterQueue: "orders-dlq", deadLetterSources: [] });
    expect(snapshot.queues[1]).toMatchObject({ deadLetterSources: ["orders"] });
  });

  it("shows a queue's messages by peek, and its dead letters with reason, description and source queue", async () => {
    const messages = await call(dashboard.endpoint, "GET", "/dashboard/api/queues/orders/messages");
    expect((messages.json as MessagePage).messages.map((message) => message.body)).toEqual([
      '{"order":"o-8"}',
    ]);
    // Either name finds the dead letters: the source queue's or the dead-letter queue's own.
    for (const name of ["orders", "orders-dlq"]) {
      const answer = await call(dashboard.endpoint, "GET", `/dashboard/api/queues/${name}/dead-letters`);
      expect(answer.status).toBe(200);
      const page = answer.json as MessagePage;
      expect(page.queue).toBe("orders-dlq");
      expect(page.messages).toHaveLength(1);
      expect(page.messages[0]).toMatchObject({
        body: DEAD_LETTER.body,
        bodyEncoding: "utf8",
        deadLetter: {
          reason: DEAD_LETTER.reason,
          description: DEAD_LETTER.description,
          sourceQueue: "orders",
        },
      });
    }
  });

  it("refuses a change without the token, with a wrong one, or from another origin (403), and changes nothing", async () => {
    const before = countsOf(await snapshotOf(dashboard), "orders");
    const own = new URL(dashboard.endpoint).origin;
    const send = "/dashboard/api/queues/orders/messages";
    const refused = await Promise.all([
      call(dashboard.endpoint, "POST", send, { body: { body: "no token" } }),
      call(dashboard.endpoint, "POST", send, { headers: { origin: own }, body: { body: "no token" } }),
      call(dashboard.endpoint, "POST", send, { headers: { [TOKEN_HEADER]: "guess" }, body: { body: "x" } }),
      call(dashboard.endpoint, "POST", send, { body: { body: "x", token: `${dashboard.token}x` } }),
      call(dashboard.endpoint, "POST", send, {
        headers: { [TOKEN_HEADER]: dashboard.token, origin: "http://evil.example" },
        body: { body: "from elsewhere" },
      }),
      call(dashboard.endpoint, "POST", send, {
        headers: { [TOKEN_HEADER]: dashboard.token, origin: "null" },
        body: { body: "from a sandbox" },
      }),
      // A form post from another page: no JSON, no token.
      call(dashboard.endpoint, "POST", "/dashboard/api/queues/orders/purge", {
        headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://evil.example" },
        body: "confirm=yes",
      }),
      call(dashboard.endpoint, "DELETE", "/dashboard/api/queues/orders"),
      call(dashboard.endpoint, "PUT", "/dashboard/api/queues/orders/purge"),
      call(dashboard.endpoint, "PATCH", "/dashboard/api/queues/orders/redrive"),
    ]);
    for (const answer of refused) {
      expect(answer.status).toBe(403);
      expect((answer.json as { error: { code: string } }).error.code).toBe("PermissionDenied");
    }
    expect(countsOf(await snapshotOf(dashboard), "orders")).toEqual(before);
  });

  it("changes nothing on a GET, whatever its path says", async () => {
    const before = await snapshotOf(dashboard);
    for (const path of ["/dashboard/api/queues/orders/purge", "/dashboard/api/queues/orders-dlq/redrive"])
      expect((await call(dashboard.endpoint, "GET", `${path}?token=${dashboard.token}`)).status).toBe(404);
    expect((await snapshotOf(dashboard)).queues).toEqual(before.queues);
  });

  it("answers only requests addressed to this machine while it listens on loopback (no DNS rebinding)", async () => {
    const port = new URL(dashboard.endpoint).port;
    const elsewhere = await call(dashboard.endpoint, "GET", "/dashboard/api/snapshot", {
      headers: { host: `rebound.example:${port}` },
    });
    expect(elsewhere.status).toBe(403);
    const local = await call(dashboard.endpoint, "GET", "/", { headers: { host: `localhost:${port}` } });
    expect(local.status).toBe(200);
  });

  it("refuses a body that is not JSON, a missing body member, an unknown queue and an unknown path", async () => {
    const own = { [TOKEN_HEADER]: dashboard.token };
    const notJson = await call(dashboard.endpoint, "POST", "/dashboard/api/queues/orders/messages", {
      headers: { ...own, "content-type": "application/json" },
      body: "{not json",
    });
    expect(notJson.status).toBe(400);
    expect(
      (await change(dashboard.endpoint, dashboard.token, "/dashboard/api/queues/orders/messages")).status,
    ).toBe(400);
    const unknown = await change(dashboard.endpoint, dashboard.token, "/dashboard/api/queues/nope/messages", {
      body: "x",
    });
    expect(unknown.status).toBe(404);
    expect((unknown.json as { error: { code: string } }).error.code).toBe("QueueNotFound");
    expect((await call(dashboard.endpoint, "GET", "/dashboard/api/queues/nope/messages")).status).toBe(404);
    expect((await call(dashboard.endpoint, "GET", "/dashboard/nothing/here")).status).toBe(404);
    expect((await call(dashboard.endpoint, "GET", "/dashboard/assets/constructor")).status).toBe(404);
  });

  it("lists, retries and dismisses the receiver's parked messages and failed deliveries", async () => {
    const listed = (await snapshotOf(dashboard)).deliveries;
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: items.parked.id, kind: "parked", reason: "unlisted_type" }),
        expect.objectContaining({ id: items.delivery.id, kind: "delivery", reason: "CardDeclined" }),
      ]),
    );
    const refused = await call(
      dashboard.endpoint,
      "POST",
      `/dashboard/api/deliveries/${items.parked.id}/retry`,
    );
    expect(refused.status).toBe(403);
    const retried = await change(
      dashboard.endpoint,
      dashboard.token,
      `/dashboard/api/deliveries/${items.parked.id}/retry`,
    );
    expect(retried.status).toBe(200);
    expect(retried.json).toEqual({ id: items.parked.id, status: "retried" });
    const dismissed = await change(
      dashboard.endpoint,
      dashboard.token,
      `/dashboard/api/deliveries/${items.delivery.id}/dismiss`,
    );
    expect(dismissed.json).toEqual({ id: items.delivery.id, status: "dismissed" });
    expect((await snapshotOf(dashboard)).deliveries).toEqual([]);
    const again = await change(
      dashboard.endpoint,
      dashboard.token,
      `/dashboard/api/deliveries/${items.parked.id}/retry`,
    );
    expect(again.status).toBe(404);
  });
});

describe("the dashboard's changes", () => {
  let url: string;
  let dashboard: RunningDashboard;

  beforeAll(async () => {
    url = await queueStore();
    dashboard = await startDashboard(url);
  }, 60_000);

  it("sends a message, redrives dead letters back to their queue and purges a queue", async () => {
    const client = await storeClient(url);
    const sent = await change(dashboard.endpoint, dashboard.token, "/dashboard/api/queues/orders/messages", {
      body: "sent from the dashboard",
    });
    expect(sent.status).toBe(201);
    const { messageId } = sent.json as { messageId: string };
    const peeked = await client.admin.peekMessages("orders", 10);
    expect(peeked.find((message) => message.messageId === messageId)?.text()).toBe("sent from the dashboard");

    // The token may come in the body instead of the header.
    const redriven = await call(dashboard.endpoint, "POST", "/dashboard/api/queues/orders-dlq/redrive", {
      body: { token: dashboard.token },
    });
    expect(redriven.json).toEqual({ queue: "orders-dlq", moved: 1 });
    expect(await client.admin.getQueueStats("orders")).toMatchObject({ active: 3, deadLettered: 0 });
    expect((await client.admin.peekMessages("orders", 10)).map((message) => message.text())).toContain(
      DEAD_LETTER.body,
    );

    const purged = await change(dashboard.endpoint, dashboard.token, "/dashboard/api/queues/orders/purge");
    expect(purged.json).toEqual({ queue: "orders", purged: 3 });
    expect(await client.admin.getQueueStats("orders")).toMatchObject({ active: 0 });
  });

  it("pushes a snapshot to an open page when a count changes, however it changed", async () => {
    const client = await storeClient(url);
    const stream = await events(dashboard.endpoint);
    try {
      const first = await stream.next<DashboardSnapshot>("snapshot", () => true);
      const active = countsOf(first, "orders").active;
      // Sent by another client of the store, not through the dashboard: only the periodic read sees it.
      await client.sendMessage("orders", "from the application");
      const later = await stream.next<DashboardSnapshot>(
        "snapshot",
        (snapshot) => countsOf(snapshot, "orders").active === active + 1,
      );
      expect(countsOf(later, "orders").active).toBe(active + 1);
    } finally {
      stream.close();
    }
  });
});

describe("the dashboard over a sqlite store with a topic", () => {
  it("lists each subscription and its dead-letter queue with its topic, and peeks, redrives and purges a subscription like a queue", async () => {
    const url = `sqlite:${scratchFile("topics.db")}`;
    const client = await storeClient(url);
    await client.admin.createTopic("orders");
    await client.admin.createSubscription("orders", "billing");
    await client.publishMessages("orders", ["o-1", "o-2"]);
    const billing = subscriptionPath("orders", "billing");
    const received = await client.receiveMessage(billing);
    await client.deadLetterMessage(received!.receiptHandle, "Unpaid");
    const dashboard = await startDashboard(url);

    const snapshot = await snapshotOf(dashboard);
    const deadLetters = await client.admin.deadLetterQueueOf(billing);
    expect(snapshot.topics).toEqual([{ name: "orders", subscriptions: 1, published: 2 }]);
    expect(snapshot.queues.map((queue) => [queue.name, queue.topic])).toEqual([
      [billing, "orders"],
      [deadLetters, "orders"],
    ]);
    expect(countsOf(snapshot, billing)).toEqual(await client.admin.getQueueStats(billing));
    expect(snapshot.queues[1]).toMatchObject({ deadLetterSources: [billing] });

    const path = (name: string, action: string) =>
      `/dashboard/api/queues/${encodeURIComponent(name)}/${action}`;
    const messages = await call(dashboard.endpoint, "GET", path(billing, "messages"));
    expect((messages.json as MessagePage).messages.map((message) => message.body)).toEqual(["o-2"]);
    const dead = await call(dashboard.endpoint, "GET", path(billing, "dead-letters"));
    expect((dead.json as MessagePage).messages.map((message) => message.body)).toEqual(["o-1"]);
    const redriven = await change(dashboard.endpoint, dashboard.token, path(deadLetters, "redrive"));
    expect(redriven.json).toEqual({ queue: deadLetters, moved: 1 });
    const purged = await change(dashboard.endpoint, dashboard.token, path(billing, "purge"));
    expect(purged.json).toEqual({ queue: billing, purged: 2 });
  });
});
