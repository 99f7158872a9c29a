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
      code: "Validation",
    });
    await expect(
      createClient({ provider: { type: "memory" }, retryPolicy: { maxAttempts: 0 } }),
    ).rejects.toBeInstanceOf(QueueError);
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
