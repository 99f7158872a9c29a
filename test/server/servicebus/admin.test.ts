// The management REST API against the real ServiceBusAdministrationClient (SDK 7.9.5), which is
// the judge of the XML: what it sends is what the server must read, what it parses is what the
// server must write.
import type { ServiceBusAdministrationClient } from "@azure/service-bus";
import { afterEach, describe, expect, it } from "vitest";
import { FOREVER_DURATION } from "../../../src/azure/iso-duration.js";
import type { EngineMessage } from "../../../src/engine/delivery.js";
import { MemoryStore } from "../../../src/engine/memory/memory-store.js";
import { QueueEngine } from "../../../src/engine/queue-engine.js";
import type { LockReference } from "../../../src/engine/records.js";
import { ServiceBusAdminServer } from "../../../src/server/servicebus/admin/admin-server.js";
import { type SasKey, sasSignature } from "../../../src/server/servicebus/sas.js";
import { outgoingMessage } from "../../support/outgoing-message.js";
import { adminClientFor, restError, sampleStyleAdminClient } from "./admin-client.js";

const KEY: SasKey = { keyName: "RootManageSharedAccessKey", key: "SAS_KEY_VALUE" };

interface Running {
  readonly engine: QueueEngine;
  readonly server: ServiceBusAdminServer;
  readonly admin: ServiceBusAdministrationClient;
}

const started: ServiceBusAdminServer[] = [];
afterEach(async () => {
  for (const server of started.splice(0)) await server.close();
});

async function start(sasKey: SasKey | null = KEY): Promise<Running> {
  const engine = new QueueEngine(new MemoryStore(), { createQueues: false });
  const server = await ServiceBusAdminServer.start({ engine, host: "127.0.0.1", port: 0, sasKey });
  started.push(server);
  return { engine, server, admin: adminClientFor(server.endpoint, KEY) };
}

function message(body: string, options: { delayMs?: number; sessionId?: string } = {}): EngineMessage {
  return outgoingMessage(body, options);
}

async function lock(engine: QueueEngine, queue: string, max: number): Promise<LockReference[]> {
  return engine.receive(queue, max, (record) => ({ queue, seq: record.seq, lockToken: record.lockToken! }));
}

/** A SAS token for `resource` as Azure builds one (the resource lower-cased and encoded). */
function sasToken(resource: string, key: SasKey = KEY, expiry = Math.floor(Date.now() / 1000) + 300): string {
  const sr = encodeURIComponent(resource.toLowerCase());
  const sig = encodeURIComponent(sasSignature(key.key, sr, expiry));
  return `SharedAccessSignature sr=${sr}&sig=${sig}&se=${expiry}&skn=${key.keyName}`;
}

async function raw(
  server: ServiceBusAdminServer,
  path: string,
  init: RequestInit = {},
): Promise<{ status: number; body: string; type: string | null }> {
  const response = await fetch(`${server.endpoint}${path}`, init);
  return { status: response.status, body: await response.text(), type: response.headers.get("content-type") };
}

const ENTRY_START =
  '<?xml version="1.0" encoding="UTF-8"?><entry xmlns="http://www.w3.org/2005/Atom"><content type="application/xml"><QueueDescription xmlns="http://schemas.microsoft.com/netservices/2010/10/servicebus/connect">';
const ENTRY_END = "</QueueDescription></content></entry>";

describe("ServiceBusAdminServer with ServiceBusAdministrationClient", () => {
  it("creates a queue with Azure's defaults, not the engine's", async () => {
    const { engine, admin } = await start();
    const created = await admin.createQueue("orders");
    expect(created).toMatchObject({
      name: "orders",
      lockDuration: "PT1M",
      maxSizeInMegabytes: 1024,
      maxDeliveryCount: 10,
      defaultMessageTimeToLive: FOREVER_DURATION,
      deadLetteringOnMessageExpiration: false,
      requiresSession: false,
      requiresDuplicateDetection: false,
      duplicateDetectionHistoryTimeWindow: "PT10M",
      enableBatchedOperations: true,
      enablePartitioning: false,
      autoDeleteOnIdle: FOREVER_DURATION,
      status: "Active",
      enableExpress: false,
      availabilityStatus: "Available",
    });
    expect(created.forwardTo).toBeUndefined();
    expect(created.userMetadata).toBeUndefined();
    expect(engine.getQueueRecord("orders")).toMatchObject({
      lockDurationMs: 60_000,
      maxDeliveryCount: 10,
      defaultTimeToLiveMs: null,
      deadLetterOnExpiration: false,
      fifo: false,
      deduplicationWindowMs: 0,
      deadLetterQueue: "orders-dlq",
    });
  });

  it("round-trips every settable property through create and get, into the engine's settings", async () => {
    const { engine, server, admin } = await start();
    const host = new URL(server.endpoint).host;
    const settings = {
      lockDuration: "PT0.5S",
      maxSizeInMegabytes: 2048,
      requiresDuplicateDetection: true,
      duplicateDetectionHistoryTimeWindow: "PT2M",
      requiresSession: true,
      defaultMessageTimeToLive: "P14D",
      deadLetteringOnMessageExpiration: true,
      maxDeliveryCount: 4,
      enableBatchedOperations: false,
      status: "SendDisabled" as const,
      autoDeleteOnIdle: "P1DT2H3M4.5S",
      enablePartitioning: true,
      forwardTo: "target",
      forwardDeadLetteredMessagesTo: "dead-target",
      userMetadata: `<meta & "data"> 'quoted'`,
      enableExpress: true,
      maxMessageSizeInKilobytes: 1024,
      authorizationRules: [
        {
          claimType: "SharedAccessKey",
          accessRights: ["Listen" as const, "Send" as const],
          keyName: "app",
          primaryKey: "p1",
          secondaryKey: "s1",
        },
      ],
    };
    const expected = {
      ...settings,
      name: "settings",
      // The SDK makes the forwarding targets absolute from the namespace before sending them.
      forwardTo: `sb://${host}/target`,
      forwardDeadLetteredMessagesTo: `sb://${host}/dead-target`,
    };
    expect(await admin.createQueue("settings", settings)).toMatchObject(expected);
    expect(await admin.getQueue("settings")).toMatchObject(expected);
    const record = engine.getQueueRecord("settings")!;
    expect(record).toMatchObject({
      lockDurationMs: 500,
      fifo: true,
      deduplicationWindowMs: 120_000,
      defaultTimeToLiveMs: 14 * 86_400_000,
      deadLetterOnExpiration: true,
      maxDeliveryCount: 4,
    });
    expect(record.properties["servicebus:UserMetadata"]).toBe(settings.userMetadata);
    expect(record.properties["servicebus:Status"]).toBe("SendDisabled");
  });

  it("keeps the duplicate detection window while detection is off, and engine counts past its limits", async () => {
    const { engine, admin } = await start();
    await admin.createQueue("window", {
      duplicateDetectionHistoryTimeWindow: "PT30S",
      maxDeliveryCount: 2_147_483_647,
    });
    expect(engine.getQueueRecord("window")).toMatchObject({
      deduplicationWindowMs: 0,
      maxDeliveryCount: null,
    });
    expect(await admin.getQueue("window")).toMatchObject({
      requiresDuplicateDetection: false,
      duplicateDetectionHistoryTimeWindow: "PT30S",
      maxDeliveryCount: 2_147_483_647,
    });
  });

  it("updates a queue's settings and keeps its messages and creation time", async () => {
    const { engine, admin } = await start();
    await admin.createQueue("orders");
    engine.send("orders", [message("one"), message("two")]);
    const before = await admin.getQueueRuntimeProperties("orders");
    const queue = await admin.getQueue("orders");
    const updated = await admin.updateQueue({
      ...queue,
      lockDuration: "PT10S",
      maxDeliveryCount: 3,
      deadLetteringOnMessageExpiration: true,
      requiresDuplicateDetection: true,
      userMetadata: "v2",
    });
    expect(updated).toMatchObject({ lockDuration: "PT10S", maxDeliveryCount: 3, userMetadata: "v2" });
    expect(await admin.getQueue("orders")).toMatchObject({
      lockDuration: "PT10S",
      maxDeliveryCount: 3,
      deadLetteringOnMessageExpiration: true,
      requiresDuplicateDetection: true,
      duplicateDetectionHistoryTimeWindow: "PT10M",
      userMetadata: "v2",
    });
    expect(engine.getQueueRecord("orders")).toMatchObject({
      lockDurationMs: 10_000,
      maxDeliveryCount: 3,
      deadLetterOnExpiration: true,
      deduplicationWindowMs: 600_000,
      deadLetterQueue: "orders-dlq",
    });
    const after = await admin.getQueueRuntimeProperties("orders");
    expect(after.activeMessageCount).toBe(2);
    expect(after.createdAt).toEqual(before.createdAt);
    expect(after.modifiedAt.getTime()).toBeGreaterThanOrEqual(before.modifiedAt.getTime());
  });

  it("refuses to change RequiresSession on an existing queue (400, ServiceError)", async () => {
    const { admin } = await start();
    const queue = await admin.createQueue("orders");
    const error = await restError(() => admin.updateQueue({ ...queue, requiresSession: true }));
    expect(error.statusCode).toBe(400);
    expect(error.code).toBe("ServiceError");
    expect(error.message).toContain("RequiresSession");
  });

  it("maps a missing queue to 404 MessageEntityNotFoundError and an existing one to 409 MessageEntityAlreadyExistsError", async () => {
    const { admin } = await start();
    const template = await admin.createQueue("template");
    for (const call of [
      () => admin.getQueue("missing"),
      () => admin.getQueueRuntimeProperties("missing"),
      () => admin.deleteQueue("missing"),
      () => admin.updateQueue({ ...template, name: "missing" }),
    ]) {
      const error = await restError(call);
      expect(error.statusCode).toBe(404);
      expect(error.code).toBe("MessageEntityNotFoundError");
    }
    await admin.createQueue("orders");
    for (const name of ["orders", "ORDERS"]) {
      const error = await restError(() => admin.createQueue(name));
      expect(error.statusCode).toBe(409);
      expect(error.code).toBe("MessageEntityAlreadyExistsError");
      expect(error.message).toContain("already exists");
    }
    expect(await admin.queueExists("orders")).toBe(true);
    expect(await admin.queueExists("Orders")).toBe(true);
    expect(await admin.queueExists("missing")).toBe(false);
  });

  it("finds queues by name in any case and keeps the name as created", async () => {
    const { engine, admin } = await start();
    await admin.createQueue("Orders.Events");
    expect((await admin.getQueue("orders.events")).name).toBe("Orders.Events");
    const queue = await admin.getQueue("ORDERS.EVENTS");
    await admin.updateQueue({ ...queue, name: "orders.EVENTS", maxDeliveryCount: 5 });
    expect(engine.getQueueRecord("Orders.Events")?.maxDeliveryCount).toBe(5);
    expect(engine.getQueueRecord("orders.EVENTS")).toBeUndefined();
    await admin.deleteQueue("ORDERS.events");
    expect(engine.listQueues()).toEqual([]);
  });

  it("deletes a queue with its messages and its dead-letter queue", async () => {
    const { engine, admin } = await start();
    await admin.createQueue("orders");
    engine.send("orders", [message("a"), message("b")]);
    const [first] = await lock(engine, "orders", 1);
    engine.deadLetter(first!, "Testing");
    expect(engine.getQueueRecord("orders-dlq")).toBeDefined();
    await admin.deleteQueue("orders");
    expect(engine.getQueueRecord("orders")).toBeUndefined();
    expect(engine.getQueueRecord("orders-dlq")).toBeUndefined();
    await admin.createQueue("orders");
    expect((await admin.getQueueRuntimeProperties("orders")).totalMessageCount).toBe(0);
  });

  it("lists queues in pages, leaving dead-letter queues out", async () => {
    const { engine, admin } = await start();
    for (const name of ["a", "b", "c", "d"]) await admin.createQueue(name);
    // A queue made by another protocol on the same engine is a queue too.
    engine.createQueue("e");
    engine.send("a", [message("x")]);
    const [locked] = await lock(engine, "a", 1);
    engine.deadLetter(locked!, "Testing");
    expect(engine.getQueueRecord("a-dlq")).toBeDefined();

    const pages: string[][] = [];
    for await (const page of admin.listQueues().byPage({ maxPageSize: 2 }))
      pages.push(page.map((queue) => queue.name));
    expect(pages).toEqual([["a", "b"], ["c", "d"], ["e"]]);

    const all: string[] = [];
    for await (const queue of admin.listQueues()) all.push(queue.name);
    expect(all).toEqual(["a", "b", "c", "d", "e"]);

    const first = await admin.listQueues().byPage({ maxPageSize: 3 }).next();
    const token = (first.value as { continuationToken?: string }).continuationToken;
    expect(token).toBe("3");
    const rest = await admin.listQueues().byPage({ maxPageSize: 3, continuationToken: token }).next();
    expect((rest.value as { name: string }[]).map((queue) => queue.name)).toEqual(["d", "e"]);
    await expect(admin.getQueue("a-dlq")).rejects.toMatchObject({ code: "MessageEntityNotFoundError" });
  });

  it("pages at 100 queues when the client sets no page size", async () => {
    const { engine, admin } = await start();
    for (let i = 0; i < 105; i++) engine.createQueue(`queue-${String(i).padStart(3, "0")}`);
    const sizes: number[] = [];
    for await (const page of admin.listQueues().byPage()) sizes.push(page.length);
    expect(sizes).toEqual([100, 5]);
  });

  it("counts messages by kind: active (ready, locked, deferred), scheduled, dead-lettered", async () => {
    const { engine, admin } = await start();
    await admin.createQueue("work");
    await admin.createQueue("idle");
    engine.send("work", [
      message("aaaa"),
      message("bbbb"),
      message("cc"),
      message("d"),
      message("later", { delayMs: 600_000 }),
    ]);
    const [deadLettered, deferred] = await lock(engine, "work", 3);
    engine.deadLetter(deadLettered!, "Testing");
    engine.defer(deferred!);
    const expected = {
      name: "work",
      activeMessageCount: 3,
      deadLetterMessageCount: 1,
      scheduledMessageCount: 1,
      transferMessageCount: 0,
      transferDeadLetterMessageCount: 0,
      totalMessageCount: 5,
      sizeInBytes: 4 + 4 + 2 + 1 + 5,
    };
    const properties = await admin.getQueueRuntimeProperties("work");
    expect(properties).toMatchObject(expected);
    expect(properties.createdAt).toBeInstanceOf(Date);
    expect(properties.modifiedAt).toBeInstanceOf(Date);
    expect(properties.accessedAt).toBeInstanceOf(Date);
    expect(Math.abs(properties.createdAt.getTime() - Date.now())).toBeLessThan(60_000);

    const listed = [];
    for await (const queue of admin.listQueuesRuntimeProperties()) listed.push(queue);
    expect(listed.map((queue) => queue.name)).toEqual(["idle", "work"]);
    expect(listed[1]).toMatchObject(expected);
    expect(listed[0]).toMatchObject({ activeMessageCount: 0, totalMessageCount: 0, sizeInBytes: 0 });
  });

  it("answers getNamespaceProperties", async () => {
    const { admin } = await start();
    const namespace = await admin.getNamespaceProperties();
    expect(namespace).toMatchObject({ name: "sbemulatorns", messagingSku: "Standard" });
    expect(namespace.createdAt).toBeInstanceOf(Date);
    expect(namespace.messagingUnits).toBeUndefined();
  });

  it("refuses a wrong key, a missing token, an expired one and one for another entity (401)", async () => {
    const { server, admin } = await start();
    await admin.createQueue("orders");
    const wrong = adminClientFor(server.endpoint, { ...KEY, key: "not-the-key" });
    const error = await restError(() => wrong.getQueue("orders"));
    expect(error.statusCode).toBe(401);
    expect(error.code).toBe("UnauthorizedRequestError");
    expect(error.message).toContain("signature");
    const otherName = adminClientFor(server.endpoint, { keyName: "other", key: KEY.key });
    expect((await restError(() => otherName.getQueue("orders"))).statusCode).toBe(401);

    const missing = await raw(server, "/orders?api-version=2021-05");
    expect(missing.status).toBe(401);
    expect(missing.body).toMatch(/^<Error><Code>401<\/Code><Detail>MissingToken: .*<\/Detail><\/Error>$/);

    const origin = server.endpoint;
    const expired = sasToken(`${origin}/orders`, KEY, Math.floor(Date.now() / 1000) - 10);
    expect((await raw(server, "/orders", { headers: { authorization: expired } })).status).toBe(401);
    const elsewhere = await raw(server, "/orders", {
      headers: { authorization: sasToken(`${origin}/other`) },
    });
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.body).toContain("grants");
    // A namespace-wide token grants every entity, whatever host name it was made for.
    const namespaceWide = sasToken("sb://localhost/");
    expect((await raw(server, "/orders", { headers: { authorization: namespaceWide } })).status).toBe(200);
    expect(
      (await raw(server, "/orders", { headers: { authorization: sasToken(`${origin}/orders`) } })).status,
    ).toBe(200);
  });

  it("checks the supplementary token that comes with a ForwardTo", async () => {
    const { server } = await start();
    const body = `${ENTRY_START}<ForwardTo>sb://localhost/target</ForwardTo>${ENTRY_END}`;
    const headers = {
      authorization: sasToken(`${server.endpoint}/orders`),
      "content-type": "application/atom+xml;type=entry;charset=utf-8",
    };
    const refused = await raw(server, "/orders", {
      method: "PUT",
      body,
      headers: {
        ...headers,
        servicebussupplementaryauthorization: sasToken("localhost", { ...KEY, key: "wrong" }),
      },
    });
    expect(refused.status).toBe(401);
    const accepted = await raw(server, "/orders", {
      method: "PUT",
      body,
      headers: { ...headers, servicebussupplementaryauthorization: sasToken("localhost") },
    });
    expect(accepted.status).toBe(201);
  });

  it("accepts any key and any request without auth (--no-auth)", async () => {
    const { server } = await start(null);
    const anyKey = adminClientFor(server.endpoint, { keyName: "whoever", key: "whatever" });
    await anyKey.createQueue("orders");
    expect((await anyKey.getQueue("orders")).name).toBe("orders");
    expect((await raw(server, "/orders")).status).toBe(200);
  });

  it("works with a client set up as the official emulator's JS sample does it, health check included", async () => {
    const { server } = await start();
    const health = await raw(server, "/health");
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toEqual({ status: "healthy", message: "Service is healthy." });
    const sample = sampleStyleAdminClient(server.endpoint, KEY);
    await sample.createQueue("sample-queue");
    expect(await sample.queueExists("sample-queue")).toBe(true);
    await sample.deleteQueue("sample-queue");
    expect(await sample.queueExists("sample-queue")).toBe(false);
    // The SDK signs every request, so a queue named like the health check is still a queue.
    await sample.createQueue("health");
    expect((await sample.getQueue("health")).name).toBe("health");
  });

  it("answers missing topics, subscriptions, rules and sub-queues as not found, and lists no topics", async () => {
    const { admin } = await start();
    await admin.createQueue("orders");
    const topics = [];
    for await (const topic of admin.listTopics()) topics.push(topic);
    expect(topics).toEqual([]);
    for (const call of [
      () => admin.getTopic("events"),
      () => admin.getSubscription("events", "all"),
      () => admin.createSubscription("events", "all"),
      () => admin.getRule("events", "all", "$Default"),
      () => admin.getQueue("orders/$DeadLetterQueue"),
      () => admin.listSubscriptions("events").byPage().next(),
    ]) {
      const error = await restError(call);
      expect(error.statusCode).toBe(404);
      expect(error.code).toBe("MessageEntityNotFoundError");
    }
  });

  it("answers malformed requests in Azure's error shape, with no stack trace, and keeps serving", async () => {
    const { server, admin } = await start(null);
    const put = (body: string) => raw(server, "/orders", { method: "PUT", body });
    const cases: [Promise<{ status: number; body: string; type: string | null }>, number, string][] = [
      [put("<entry"), 400, "not well-formed XML"],
      [put(`<!DOCTYPE x [<!ENTITY a "b">]><entry/>`), 400, "DOCTYPE"],
      [put("<feed/>"), 400, "expected an ATOM <entry>"],
      [put(`${ENTRY_START}<LockDuration>PT1X</LockDuration>${ENTRY_END}`), 400, 'LockDuration "PT1X"'],
      [put(`${ENTRY_START}<MaxDeliveryCount>-1</MaxDeliveryCount>${ENTRY_END}`), 400, "MaxDeliveryCount"],
      [put(`${ENTRY_START}<RequiresSession>maybe</RequiresSession>${ENTRY_END}`), 400, "RequiresSession"],
      [put(`${ENTRY_START}<Status>Paused</Status>${ENTRY_END}`), 400, "Status"],
      [raw(server, "/bad%name", { method: "PUT", body: `${ENTRY_START}${ENTRY_END}` }), 400, "percent"],
      [raw(server, "/-bad-", { method: "PUT", body: `${ENTRY_START}${ENTRY_END}` }), 400, "queue name"],
      [raw(server, "/orders", { method: "POST", body: "" }), 405, "POST"],
      [raw(server, "/$Resources/Queues?$skip=abc"), 400, "$skip"],
      [raw(server, "/"), 404, "could not be found"],
      [raw(server, "/$Resources/EventHubs"), 404, "could not be found"],
      [put("x".repeat(1024 * 1024 + 1)), 413, "larger than"],
    ];
    for (const [answer, status, detail] of cases) {
      const { status: got, body, type } = await answer;
      expect({ got, detail }).toEqual({ got: status, detail });
      expect(type).toContain("application/xml");
      expect(body).toMatch(new RegExp(`^<Error><Code>${status}</Code><Detail>.*</Detail></Error>$`, "s"));
      expect(body).toContain(
        detail.replace(
          /[<>"&]/g,
          (char) => ({ "<": "&lt;", ">": "&gt;", '"': "&quot;", "&": "&amp;" })[char]!,
        ),
      );
      expect(body).not.toMatch(/\n\s+at |\.ts:\d+/);
    }
    const bad = await restError(() => admin.createQueue("orders", { lockDuration: "soon" }));
    expect(bad.statusCode).toBe(400);
    expect(bad.code).toBe("ServiceError");
    expect(bad.message).toContain('LockDuration "soon" is not an ISO-8601 duration');
    expect((await admin.createQueue("orders")).name).toBe("orders");
  });

  it("does not let a new queue take another's dead-letter queue, nor dead-letter into someone's queue", async () => {
    const { engine, admin } = await start();
    await admin.createQueue("orders");
    const taken = await restError(() => admin.createQueue("orders-dlq"));
    expect(taken.statusCode).toBe(409);
    expect(taken.message).toContain("dead-letter queue of 'orders'");
    await admin.createQueue("jobs-dlq");
    await admin.createQueue("jobs");
    expect(engine.getQueueRecord("jobs")?.deadLetterQueue).toBe("jobs/$DeadLetterQueue");
    const names: string[] = [];
    for await (const queue of admin.listQueues()) names.push(queue.name);
    expect(names).toEqual(["jobs", "jobs-dlq", "orders"]);
  });

  it("says so when its port is taken", async () => {
    const { engine, server } = await start();
    const taken = ServiceBusAdminServer.start({ engine, host: "127.0.0.1", port: server.port, sasKey: null });
    await expect(taken).rejects.toMatchObject({
      name: "QueueError",
      code: "Configuration",
      message: `the Service Bus admin API cannot listen on 127.0.0.1:${server.port}: the port is in use`,
    });
  });

  it("reports an engine that has gone away as a server error without internals", async () => {
    const { engine, server } = await start(null);
    await engine.close();
    const answer = await raw(server, "/$Resources/Queues");
    expect(answer.status).toBe(503);
    expect(answer.body).toContain("could not handle the request");
    expect(answer.body).not.toContain("memory store");
  });
});
