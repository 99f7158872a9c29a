import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createClient, parseQueueUrl, QueueError } from "../../src/index.js";

describe("queue URLs", () => {
  it("reads every provider's form and its options", () => {
    expect(parseQueueUrl("memory:")).toEqual({ provider: { type: "memory" } });
    expect(parseQueueUrl("memory:shared?lockDurationMs=500")).toEqual({
      provider: { type: "memory", name: "shared", lockDurationMs: 500 },
    });
    expect(
      parseQueueUrl("sqlite:./data/q.db?maxDeliveryCount=5&defaultTimeToLiveMs=none&createQueues=false"),
    ).toEqual({
      provider: { type: "sqlite", path: "./data/q.db", maxDeliveryCount: 5, defaultTimeToLiveMs: null },
      createQueues: false,
    });
    expect(parseQueueUrl("sqs://127.0.0.1:9324?region=eu-west-1&operationMs=2000")).toEqual({
      provider: { type: "sqs", region: "eu-west-1", endpoint: "http://127.0.0.1:9324" },
      timeouts: { operationMs: 2_000 },
    });
    expect(parseQueueUrl("sqss://sqs.example.com").provider).toEqual({
      type: "sqs",
      endpoint: "https://sqs.example.com",
    });
    expect(parseQueueUrl("sqs:").provider).toEqual({ type: "sqs" });
    expect(parseQueueUrl("servicebus:Endpoint=sb://x/;SharedAccessKey=k").provider).toEqual({
      type: "servicebus",
      connectionString: "Endpoint=sb://x/;SharedAccessKey=k",
    });
  });

  it("refuses what it cannot read with Configuration", () => {
    for (const url of [
      "",
      "nocolon",
      "sqlite:",
      "memory:?lockDurationMs=soon",
      "memory:?colour=red",
      "sqs://user@host",
    ]) {
      expect(() => parseQueueUrl(url), url).toThrow(QueueError);
    }
  });

  it("createClient names unknown providers and bad settings", async () => {
    await expect(createClient("carrier-pigeon:")).rejects.toMatchObject({ code: "Configuration" });
    await expect(createClient({ provider: { type: "memory", lockDurationMs: -5 } })).rejects.toMatchObject({
      code: "Configuration",
    });
    await expect(
      createClient({ provider: { type: "memory" }, retryPolicy: { maxAttempts: 0 } }),
    ).rejects.toMatchObject({ code: "Configuration" });
    await expect(
      createClient({ provider: { type: "memory" }, timeouts: { operationMs: -1 } }),
    ).rejects.toMatchObject({ code: "Configuration" });
  });

  it("a refused sqlite config creates no file and holds nothing: the same path opens cleanly right after", async () => {
    const directory = mkdtempSync(join(tmpdir(), "queue-runtime-refused-"));
    try {
      const path = join(directory, "a.db");
      for (const refused of [
        () => createClient(`sqlite:${path}?maxDeliveryCount=0`),
        () => createClient({ provider: { type: "sqlite", path, lockDurationMs: 0 } }),
        () => createClient({ provider: { type: "sqlite", path }, retryPolicy: { multiplier: 0 } }),
        () => createClient({ provider: { type: "sqlite", path }, timeouts: { operationMs: 0 } }),
      ]) {
        await expect(refused()).rejects.toMatchObject({ code: "Configuration" });
        expect(existsSync(path)).toBe(false);
      }
      // Nothing of the refused attempts was kept for the file: these options are the ones used.
      const client = await createClient(`sqlite:${path}?maxDeliveryCount=2`);
      await client.admin.createQueue("checked");
      expect((await client.admin.getQueue("checked"))?.maxDeliveryCount).toBe(2);
      await client.close();
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("creates queues on first use for memory, and not when told so", async () => {
    const creating = await createClient("memory:");
    await creating.sendMessage("made-on-send", "x");
    expect(await creating.admin.listQueues()).toContain("made-on-send");
    await creating.sendMessage("orders.fifo", { body: "x", sessionId: "s" });
    expect((await creating.admin.getQueue("orders.fifo"))?.fifo).toBe(true);
    await creating.close();
    const strict = await createClient("memory:?createQueues=false");
    await expect(strict.sendMessage("missing", "x")).rejects.toMatchObject({ code: "QueueNotFound" });
    await strict.close();
  });
});
