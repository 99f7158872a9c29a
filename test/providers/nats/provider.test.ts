// What the contract suite does not cover for the nats provider: its URL form, prefixes, its
// capabilities, the lock it enforces itself, dead-letter attributes, connections refused and
// lost, and a close while receives wait.
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import { createClient, parseQueueUrl, QueueError } from "../../../src/index.js";
import { DEAD_LETTER_ATTRIBUTES, DEAD_LETTER_REASONS } from "../../../src/rules/dead-letters.js";
import { deleteStreams, NATS_URL, uniquePrefix, usePrefixes } from "./broker.js";
import { freePort, OwnNatsServer } from "./fixtures/nats-server.js";

const prefixes = usePrefixes();

/** The code of the error `call` fails with. */
async function codeOf(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    return QueueError.is(error) ? error.code : String(error);
  }
  throw new Error("expected the call to fail");
}

describe("nats URLs", () => {
  it("reads servers, credentials, TLS and options", () => {
    expect(
      parseQueueUrl("nats://127.0.0.1:4222?streamPrefix=app&lockDurationMs=5000&createQueues=false"),
    ).toEqual({
      provider: {
        type: "nats",
        servers: "nats://127.0.0.1:4222",
        streamPrefix: "app",
        lockDurationMs: 5_000,
      },
      createQueues: false,
    });
    expect(parseQueueUrl("nats://alice:s%3Acret@broker:4222").provider).toEqual({
      type: "nats",
      servers: "nats://broker:4222",
      user: "alice",
      pass: "s:cret",
    });
    expect(parseQueueUrl("nats://t0ken@broker:4222").provider).toMatchObject({ token: "t0ken" });
    expect(parseQueueUrl("tls://broker:4222?maxDeliveryCount=none").provider).toEqual({
      type: "nats",
      servers: "tls://broker:4222",
      tls: true,
      maxDeliveryCount: null,
    });
  });

  it("refuses a bad URL with Configuration naming the problem", () => {
    const refused = (url: string) => {
      try {
        parseQueueUrl(url);
      } catch (error) {
        return QueueError.is(error, "Configuration") ? error.message : String(error);
      }
      throw new Error(`${url} was accepted`);
    };
    expect(refused("nats://127.0.0.1:4222?queueType=quorum")).toMatch(/queueType/);
    expect(refused("nats://127.0.0.1:4222?lockDurationMs=soon")).toMatch(/lockDurationMs/);
    expect(refused("nats://127.0.0.1:4222/some/path")).toMatch(/path/);
    expect(refused("nats://")).toMatch(/nats:\/\//);
  });

  it("refuses a stream prefix that cannot name a stream with Configuration", async () => {
    const made = createClient({ provider: { type: "nats", servers: NATS_URL, streamPrefix: "a.b" } });
    expect(await codeOf(made)).toBe("Configuration");
  });
});

describe("the nats provider", () => {
  it("says what it can do", async () => {
    const client = await prefixes.client(prefixes.prefix("caps"));
    try {
      expect(client.providerType).toBe("nats");
      expect(client.capabilities).toMatchObject({
        sessions: "native",
        deadLetter: "emulated",
        delayedDelivery: true,
        timeToLive: true,
        lockRenewal: true,
        sessionState: true,
        redrive: true,
        peek: true,
        lockedCount: false,
        ordering: "fifo",
      });
      // The server's max_payload less room for headers.
      expect(client.capabilities.maxMessageBytes).toBeLessThan(1_048_576);
    } finally {
      await client.close();
    }
  });

  it("refuses a maxMessageBytes the server cannot carry with Configuration naming it", async () => {
    const made = prefixes.client(prefixes.prefix("big"), { maxMessageBytes: 64 * 1_048_576 });
    await expect(made).rejects.toThrow(/maxMessageBytes/);
  });

  it("keeps the queues of each prefix apart: each lists only its own, unprefixed", async () => {
    const left = await prefixes.client(prefixes.prefix("left"));
    const right = await prefixes.client(prefixes.prefix("right"));
    try {
      await left.admin.createQueue("orders");
      await right.admin.createQueue("orders");
      await right.admin.createQueue("billing");
      await left.sendMessage("orders", "for left");
      expect(await left.admin.listQueues()).toEqual(["orders", "orders-dlq"]);
      expect(await right.admin.listQueues()).toEqual(["billing", "billing-dlq", "orders", "orders-dlq"]);
      expect(await right.receiveMessage("orders")).toBeNull();
      expect((await left.receiveMessage("orders"))?.text()).toBe("for left");
    } finally {
      await Promise.all([left.close(), right.close()]);
    }
  });

  it("enforces the lock itself: a settle after it ended is InvalidReceipt, and the message comes again", async () => {
    const client = await prefixes.client(prefixes.prefix("lock"));
    try {
      await client.admin.createQueue("work", { lockDurationMs: 300 });
      await client.sendMessage("work", "slow");
      const first = await client.receiveMessage("work");
      expect(first?.lockedUntil.getTime()).toBeLessThanOrEqual(Date.now() + 300);
      // Waiting out the lock is what this test is about.
      await sleep(400);
      expect(await codeOf(client.completeMessage(first!.receiptHandle))).toBe("InvalidReceipt");
      const again = await client.receiveMessage("work", 2_000);
      expect(again?.deliveryCount).toBe(2);
      await client.completeMessage(again!.receiptHandle);
      expect(await codeOf(client.completeMessage(again!.receiptHandle))).toBe("InvalidReceipt");
    } finally {
      await client.close();
    }
  });

  it("dead-letters with the reason, the description and the source queue, by hand and by delivery count", async () => {
    const client = await prefixes.client(prefixes.prefix("dlq"));
    try {
      await client.admin.createQueue("jobs", { maxDeliveryCount: 1 });
      await client.sendMessages("jobs", [{ body: "poison", attributes: { kind: "a" } }, "flaky"]);
      const [poison, flaky] = await client.receiveMessages("jobs", 2);
      await client.deadLetterMessage(poison!.receiptHandle, "Unreadable", "no JSON");
      await client.abandonMessage(flaky!.receiptHandle);
      const dead = await client.receiveMessages("jobs-dlq", 2, 1_000);
      const byBody = new Map(dead.map((message) => [message.text(), message.attributes]));
      expect(byBody.get("poison")).toEqual({
        kind: "a",
        [DEAD_LETTER_ATTRIBUTES.reason]: "Unreadable",
        [DEAD_LETTER_ATTRIBUTES.description]: "no JSON",
        [DEAD_LETTER_ATTRIBUTES.sourceQueue]: "jobs",
      });
      expect(byBody.get("flaky")).toEqual({
        [DEAD_LETTER_ATTRIBUTES.reason]: DEAD_LETTER_REASONS.maxDeliveryCount,
        [DEAD_LETTER_ATTRIBUTES.sourceQueue]: "jobs",
      });
      expect(await client.admin.getQueueStats("jobs")).toMatchObject({ active: 0, deadLettered: 2 });
    } finally {
      await client.close();
    }
  });

  it("fails with ConnectionFailed naming the servers when nothing listens there", async () => {
    const servers = `nats://127.0.0.1:${await freePort()}`;
    const made = createClient({ provider: { type: "nats", servers } });
    const error = await made.then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(QueueError.is(error, "ConnectionFailed")).toBe(true);
    expect((error as Error).message).toContain(servers);
  });

  it("resolves waiting receives and accepts empty at close", async () => {
    const client = await prefixes.client(prefixes.prefix("close"));
    await client.admin.createQueue("idle");
    await client.admin.createQueue("idle.fifo");
    const waiting = client.receiveMessages("idle", 5, 20_000);
    const borrowing = client.receiveMessages("idle.fifo", 5, 20_000);
    const begun = Date.now();
    await sleep(100);
    await client.close();
    expect(await waiting).toEqual([]);
    expect(await borrowing).toEqual([]);
    expect(Date.now() - begun).toBeLessThan(5_000);
  });
});

describe("a queue deleted under its receipts", () => {
  it("settles by receipt fail at once with InvalidReceipt, whichever client deleted the queue", async () => {
    const namespace = prefixes.prefix("deleted");
    const client = await prefixes.client(namespace);
    const other = await prefixes.client(namespace);
    await client.admin.createQueue("orders");
    await client.sendMessages("orders", ["a", "b"]);
    const received = await client.receiveMessages("orders", 2, 5_000);
    expect(received).toHaveLength(2);
    await other.admin.deleteQueue("orders");
    const started = Date.now();
    expect(await codeOf(client.abandonMessage(received[0]!.receiptHandle))).toBe("InvalidReceipt");
    expect(await codeOf(client.completeMessage(received[1]!.receiptHandle))).toBe("InvalidReceipt");
    // A direct get of a deleted stream finds no responder and would wait out its 5 s timeout.
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});

describe("a queue made again under a receipt of the one before", () => {
  it("refuses the old receipt and leaves the new queue's message of the same number free to complete", async () => {
    const client = await prefixes.client(prefixes.prefix("again"));
    try {
      await client.admin.createQueue("orders");
      await client.sendMessage("orders", "old");
      const old = await client.receiveMessage("orders");
      await client.admin.deleteQueue("orders");
      await client.admin.createQueue("orders");
      // The erase finds no message 1 on the new stream: the mark the complete spent is taken back.
      expect(await codeOf(client.completeMessage(old!.receiptHandle))).toBe("InvalidReceipt");
      await client.sendMessage("orders", "new");
      const fresh = await client.receiveMessage("orders");
      expect(fresh?.sequenceNumber).toBe(old?.sequenceNumber);
      await client.completeMessage(fresh!.receiptHandle);
      expect(await client.admin.getQueueStats("orders")).toMatchObject({ active: 0 });
    } finally {
      await client.close();
    }
  });
});

describe("a queue another client deleted and made again, with other options", () => {
  it("is what the next send and receive of this client act on, though it read the record before", async () => {
    const namespace = prefixes.prefix("remade");
    const client = await prefixes.client(namespace);
    const other = await prefixes.client(namespace);
    await client.admin.createQueue("orders", { lockDurationMs: 30_000 });
    await client.admin.createQueue("fifo");
    // Both records read by this client.
    await client.sendMessage("orders", "first");
    expect(await client.receiveMessage("orders")).not.toBeNull();
    await client.sendMessage("fifo", "plain");
    await other.admin.deleteQueue("orders");
    await other.admin.createQueue("orders", { lockDurationMs: 2_000 });
    await other.admin.deleteQueue("fifo");
    await other.admin.createQueue("fifo", { requiresSession: true });
    // The FIFO queue now refuses a message without a session, and keeps nothing of it.
    expect(await codeOf(client.sendMessage("fifo", "no session"))).toBe("Validation");
    expect(await other.admin.getQueueStats("fifo")).toMatchObject({ active: 0 });
    await other.sendMessage("orders", "second");
    const started = Date.now();
    const second = await client.receiveMessage("orders");
    expect(second?.text()).toBe("second");
    expect(second?.deliveryCount).toBe(1);
    expect(second!.receiptHandle.expiresAt.getTime() - started).toBeLessThan(10_000);
    await client.completeMessage(second!.receiptHandle);
  });
});

describe("delays another client set", () => {
  it("are moved once they end while this client keeps receiving, never before", async () => {
    const namespace = prefixes.prefix("delays");
    const receiver = await prefixes.client(namespace);
    const sender = await prefixes.client(namespace);
    try {
      await receiver.admin.createQueue("later");
      // A look that found nothing due: the next comes when a delay is seen to end.
      expect(await receiver.receiveMessage("later")).toBeNull();
      const sentAt = Date.now();
      await sender.sendMessage("later", { body: "soon", delayMs: 300 });
      let received: string | undefined;
      while (received === undefined && Date.now() - sentAt < 5_000) {
        received = (await receiver.receiveMessage("later"))?.text();
        if (received === undefined) await sleep(20);
      }
      expect(received).toBe("soon");
      expect(Date.now() - sentAt).toBeGreaterThanOrEqual(300);
    } finally {
      await Promise.all([receiver.close(), sender.close()]);
    }
  });
});

describe("a connection lost and found again", () => {
  const ownPrefix = uniquePrefix("lost");
  let server: OwnNatsServer;
  afterAll(async () => {
    await deleteStreams([ownPrefix], server.url).catch(() => undefined);
    await server.stop();
  });

  it("fails calls with ConnectionFailed naming the broker while it is down, and works again once it is back", async () => {
    server = await OwnNatsServer.start();
    const client = await createClient({
      provider: { type: "nats", servers: server.url, streamPrefix: ownPrefix },
      retryPolicy: { maxAttempts: 1 },
    });
    try {
      await client.admin.createQueue("kept");
      await client.sendMessage("kept", "before");
      await server.kill();
      const failure = await client.sendMessage("kept", "while down").then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(QueueError.is(failure, "ConnectionFailed")).toBe(true);
      expect((failure as Error).message).toContain(server.url);
      await server.restart();
      let back: string | undefined;
      const deadline = Date.now() + 15_000;
      while (back === undefined && Date.now() < deadline) {
        back = await client
          .receiveMessage("kept", 500)
          .then((message) => message?.text())
          .catch(() => undefined);
        // A call refused at once while reconnecting must not keep the event loop from reconnecting.
        if (back === undefined) await sleep(50);
      }
      expect(back).toBe("before");
    } finally {
      await client.close();
    }
  }, 30_000);
});
