import { SpanStatusCode } from "@opentelemetry/api";
import { afterEach, describe, expect, it } from "vitest";
import { traceparentOfAwsHeader } from "../../src/core/telemetry/carrier.js";
import { createClient, QueueError } from "../../src/index.js";
import { named, only, parentOf, startSdk, type TestSdk } from "./otel.js";

let sdk: TestSdk | undefined;
afterEach(async () => {
  await sdk?.close();
  sdk = undefined;
});

/** A consumer on `queue` of `client` that runs `handler` on the first message, then stops. */
async function consumeOne(
  client: Awaited<ReturnType<typeof createClient>>,
  queue: string,
  handler: () => Promise<void>,
): Promise<void> {
  let ran = false;
  const consumer = client.consume(
    queue,
    async () => {
      ran = true;
      await handler();
    },
    { retry: { initialDelayMs: 60_000 } },
  );
  await expect.poll(() => ran).toBe(true);
  await consumer.stop();
}

describe("telemetry switched off or with nothing to record to", () => {
  it("telemetry: false records nothing and adds nothing to messages, with an SDK registered", async () => {
    sdk = startSdk();
    const client = await createClient({ provider: { type: "memory" }, telemetry: false });
    await client.sendMessage("q", { body: "x", attributes: { a: "1" } });
    const message = await client.receiveMessage("q");
    await client.completeMessage(message!.receiptHandle);
    await client.sendMessages("q", ["y", "z"]);
    await consumeOne(client, "q", async () => undefined);
    await client.close();
    expect(message?.attributes).toEqual({ a: "1" });
    expect(sdk.spans()).toEqual([]);
    expect(await sdk.points("messaging.client.sent.messages")).toEqual([]);
  });

  it("with no SDK registered nothing is recorded and messages keep exactly their attributes", async () => {
    const client = await createClient("memory:");
    await client.sendMessages("q", [{ body: "x", attributes: { a: "1" } }, "y"]);
    const received = await client.receiveMessages("q", 2);
    expect(received.map((message) => message.attributes)).toEqual([{ a: "1" }, {}]);
    await client.close();
  });

  it("records to the providers given in the config, not to the global ones", async () => {
    sdk = startSdk(false);
    const client = await createClient({
      provider: { type: "memory" },
      telemetry: { tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider },
    });
    await client.sendMessage("q", "x");
    await client.close();
    expect(only(sdk.spans(), "send q").instrumentationScope).toMatchObject({ name: "queue-runtime" });
    expect(only(sdk.spans(), "send q").instrumentationScope.version).toMatch(/^\d+\.\d+\.\d+/);
    expect((await sdk.points("messaging.client.sent.messages"))[0]?.value).toBe(1);
  });

  it.each([
    ["a string", "yes"],
    ["an array", []],
    ["an unknown key", { tracer: {} }],
    ["a tracer provider without getTracer", { tracerProvider: {} }],
    ["a meter provider that is a number", { meterProvider: 3 }],
  ])("a telemetry option that is %s is a Configuration error", async (_, telemetry) => {
    const made = createClient({ provider: { type: "memory" }, telemetry: telemetry as never });
    await expect(made).rejects.toBeInstanceOf(QueueError);
    await expect(made).rejects.toMatchObject({
      code: "Configuration",
      message: expect.stringContaining("telemetry"),
    });
  });
});

describe("telemetry of failures and of contexts from elsewhere", () => {
  it("a failed send is an ERROR span and a measurement with error.type, the QueueError code", async () => {
    sdk = startSdk();
    const client = await createClient({ provider: { type: "memory" }, createQueues: false });
    await expect(client.sendMessage("missing", "x")).rejects.toMatchObject({ code: "QueueNotFound" });
    await client.close();
    const send = only(sdk.spans(), "send missing");
    expect(send.status.code).toBe(SpanStatusCode.ERROR);
    expect(send.attributes["error.type"]).toBe("QueueNotFound");
    const durations = await sdk.points("messaging.client.operation.duration");
    expect(durations.map((point) => point.attributes["error.type"])).toEqual(["QueueNotFound"]);
  });

  it("a handler that throws makes its process span ERROR with the error's class as error.type", async () => {
    sdk = startSdk();
    const client = await createClient("memory:");
    await client.sendMessage("q", "x");
    await consumeOne(client, "q", async () => {
      throw new RangeError("the handler's own words");
    });
    await client.close();
    const process = only(sdk.spans(), "process q");
    expect(process.status.code).toBe(SpanStatusCode.ERROR);
    expect(process.attributes["error.type"]).toBe("RangeError");
    expect(JSON.stringify([process.attributes, process.status, process.events])).not.toContain("own words");
    const durations = await sdk.points("messaging.process.duration");
    expect(durations.map((point) => point.attributes["error.type"])).toEqual(["RangeError"]);
    expect(named(sdk.spans(), "settle q")[0]?.attributes["messaging.operation.name"]).toBe("abandon");
  });

  it("a message that carries a traceparent already keeps it, and its consumer follows it", async () => {
    sdk = startSdk();
    const theirs = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const client = await createClient("memory:");
    await client.sendMessage("q", { body: "x", attributes: { traceparent: theirs } });
    const received = await client.receiveMessage("q");
    expect(received?.attributes.traceparent).toBe(theirs);
    await client.abandonMessage(received!.receiptHandle);
    await consumeOne(client, "q", async () => undefined);
    await client.close();
    expect(parentOf(only(sdk.spans(), "process q"))).toBe("00f067aa0ba902b7");
  });

  it("Diagnostic-Id and AWSTraceHeader are read where a message has no traceparent", async () => {
    sdk = startSdk();
    // Sent by a client that adds no context of its own, as another SDK's message would come.
    const other = await createClient({ provider: { type: "memory", name: "foreign" }, telemetry: false });
    const client = await createClient({ provider: { type: "memory", name: "foreign" }, telemetry: true });
    await other.sendMessage("azure", {
      body: "x",
      attributes: { "Diagnostic-Id": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
    });
    await other.sendMessage("aws", {
      body: "x",
      attributes: {
        AWSTraceHeader: "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1",
      },
    });
    await consumeOne(client, "azure", async () => undefined);
    await consumeOne(client, "aws", async () => undefined);
    await client.close();
    await other.close();
    const azure = only(sdk.spans(), "process azure");
    expect([azure.spanContext().traceId, parentOf(azure)]).toEqual([
      "0af7651916cd43dd8448eb211c80319c",
      "b7ad6b7169203331",
    ]);
    const aws = only(sdk.spans(), "process aws");
    expect([aws.spanContext().traceId, parentOf(aws)]).toEqual([
      "5759e988bd862e3fe1be46a994272793",
      "53995c3f42cd8ad8",
    ]);
  });

  it("an X-Ray header becomes a W3C traceparent, and anything else nothing", () => {
    expect(
      traceparentOfAwsHeader("Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=0"),
    ).toBe("00-5759e988bd862e3fe1be46a994272793-53995c3f42cd8ad8-00");
    expect(traceparentOfAwsHeader("Root=1-5759e988-bd862e3fe1be46a994272793")).toBeUndefined();
    expect(traceparentOfAwsHeader("garbage")).toBeUndefined();
  });
});
