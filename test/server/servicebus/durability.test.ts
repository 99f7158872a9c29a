import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ServiceBusClient } from "@azure/service-bus";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { JournalStore } from "../../../src/engine/journal/journal-store.js";
import { QueueEngine } from "../../../src/engine/queue-engine.js";
import { SqliteStore } from "../../../src/engine/sqlite/sqlite-store.js";
import type { QueueStore } from "../../../src/engine/store.js";
import { createQueue, QUICK, startEndpoint } from "./harness.js";
import { serve, stopServed } from "./serve-process.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-servicebus-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));
afterEach(stopServed);

const STORES: { name: string; open: (path: string) => QueueStore }[] = [
  { name: "sqlite", open: (path) => new SqliteStore(path) },
  { name: "journal", open: (path) => new JournalStore(path) },
];

describe.each(STORES)("the Service Bus endpoint across a restart ($name)", ({ name, open }) => {
  it("a restart on the same file finds every queue and every unsettled message", async () => {
    const path = join(directory, `${name}-restart`);
    const first = new QueueEngine(open(path), { createQueues: false });
    createQueue(first, "kept", { lockDurationMs: 500 });
    createQueue(first, "kept.sessions", { requiresSession: true });
    const before = await startEndpoint({ engine: first });
    await before.client
      .createSender("kept")
      .sendMessages([{ body: "settled" }, { body: "locked" }, { body: "waiting" }]);
    await before.client.createSender("kept.sessions").sendMessages({ body: "in session", sessionId: "s" });
    const receiver = before.client.createReceiver("kept");
    const [settled, locked] = await receiver.receiveMessages(2, { maxWaitTimeInMs: 1_000 });
    await receiver.completeMessage(settled!);
    expect(locked!.body).toBe("locked");
    await before.client.close();
    await before.server.close();
    await first.close();

    const second = new QueueEngine(open(path), { createQueues: false });
    const after = await startEndpoint({ engine: second, createQueues: false });
    const again = after.client.createReceiver("kept");
    await new Promise((resolve) => setTimeout(resolve, 600));
    const bodies = (await again.receiveMessages(2, { maxWaitTimeInMs: 1_000 })).map(
      (message) => message.body,
    );
    expect(bodies.sort()).toEqual(["locked", "waiting"]);
    const session = await after.client.acceptSession("kept.sessions", "s");
    expect((await session.receiveMessages(1, { maxWaitTimeInMs: 1_000 }))[0]!.body).toBe("in session");
    await session.close();
    await after.client.close();
    await after.server.close();
    await second.close();
  });
});

describe("a client that goes away", () => {
  it("leaves the locks it held until they end, as on Azure; then the messages are delivered again", async () => {
    const { engine, connectionString, client } = await startEndpoint();
    createQueue(engine, "held", { lockDurationMs: 500 });
    await client.createSender("held").sendMessages({ body: "mine" });
    const leaving = new ServiceBusClient(connectionString(), QUICK);
    const [message] = await leaving.createReceiver("held").receiveMessages(1, { maxWaitTimeInMs: 1_000 });
    expect(message!.body).toBe("mine");
    await leaving.close();
    const receiver = client.createReceiver("held");
    expect(await receiver.receiveMessages(1, { maxWaitTimeInMs: 100 })).toEqual([]);
    const [later] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 2_000 });
    expect(later).toMatchObject({ body: "mine", deliveryCount: 1 });
  });

  it("a session held by a client that leaves is free again for the next at once", async () => {
    const { engine, connectionString, client } = await startEndpoint();
    createQueue(engine, "sessions", { requiresSession: true });
    await client.createSender("sessions").sendMessages({ body: "x", sessionId: "s" });
    const leaving = new ServiceBusClient(connectionString(), QUICK);
    await leaving.acceptSession("sessions", "s");
    await leaving.close();
    await expect
      .poll(async () => (await client.acceptSession("sessions", "s").catch(() => undefined)) !== undefined)
      .toBe(true);
  });
});

/** Sessions locked for a minute, so that a session free after a restart was freed, not expired; message locks of 2 s. */
const KILLED_CONFIG = `{"UserConfig": {"Namespaces": [{"Name": "ns", "Queues": [
  {"Name": "held.sessions", "Properties": {"RequiresSession": true, "LockDuration": "PT1M"}},
  {"Name": "held.plain", "Properties": {"LockDuration": "PT2S"}}
]}]}}`;

describe.each(["--db", "--journal"])("a server killed while its clients hold locks (%s)", (flag) => {
  it("the sessions they held are free at once after a restart; a message lock ends by itself, as on Azure", async () => {
    const config = join(directory, "killed.json");
    writeFileSync(config, KILLED_CONFIG);
    const store = join(directory, `killed${flag}`);
    const args = ["--servicebus", "--no-sqs", flag, store, "--amqp-port", "0", "--admin-port", "0"];
    const first = serve([...args, "--config", config]);
    const before = new ServiceBusClient((await first.started).connectionString, QUICK);
    await before.createSender("held.sessions").sendMessages([
      { body: "one", sessionId: "s" },
      { body: "two", sessionId: "s" },
      { body: "other", sessionId: "t" },
    ]);
    await before.createSender("held.plain").sendMessages({ body: "plain" });
    const named = await before.acceptSession("held.sessions", "s");
    expect((await named.receiveMessages(1, { maxWaitTimeInMs: 2_000 }))[0]!.body).toBe("one");
    expect((await before.acceptNextSession("held.sessions")).sessionId).toBe("t");
    const [plain] = await before.createReceiver("held.plain").receiveMessages(1, { maxWaitTimeInMs: 2_000 });
    first.child.kill("SIGKILL");
    await first.exited;
    await before.close();

    const second = serve(args);
    const after = new ServiceBusClient((await second.started).connectionString, QUICK);
    const again = await after.acceptSession("held.sessions", "s");
    const received = await again.receiveMessages(2, { maxWaitTimeInMs: 2_000 });
    expect(received.map((message) => [message.body, message.deliveryCount])).toEqual([
      ["one", 1],
      ["two", 0],
    ]);
    expect((await after.acceptNextSession("held.sessions")).sessionId).toBe("t");
    const [back] = await after.createReceiver("held.plain").receiveMessages(1, { maxWaitTimeInMs: 5_000 });
    expect(back).toMatchObject({ body: "plain", deliveryCount: 1 });
    expect(Date.now()).toBeGreaterThanOrEqual(plain!.lockedUntilUtc!.getTime());
    await after.close();
  });
});
