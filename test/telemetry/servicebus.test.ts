import { ServiceBusClient } from "@azure/service-bus";
import { describe, expect, it } from "vitest";
import { useServiceBusServer } from "../providers/servicebus/server.js";
import { receiveOne, telemetryCases } from "./cases.js";
import { only } from "./otel.js";

const server = useServiceBusServer();

describe("telemetry on servicebus through serve --servicebus", () => {
  const under = telemetryCases({ client: () => server.client(), system: "servicebus", network: true });

  it("a message carries its context as Diagnostic-Id too, as the Azure SDK reads it, and a client shows it once", async () => {
    const queue = await under.newQueue();
    await under.producer().sendMessage(queue, { body: "to Azure", attributes: { tenant: "acme" } });
    const send = only(under.sdk().spans(), `send ${queue}`);
    const traceparent = `00-${send.spanContext().traceId}-${send.spanContext().spanId}-01`;

    const sdk = new ServiceBusClient(server.connectionString());
    try {
      const receiver = sdk.createReceiver(queue, { receiveMode: "peekLock" });
      const [peeked] = await receiver.peekMessages(1);
      expect(peeked?.applicationProperties).toEqual({
        tenant: "acme",
        traceparent,
        "Diagnostic-Id": traceparent,
      });
      await receiver.close();
    } finally {
      await sdk.close();
    }
    const message = await receiveOne(under.consumer(), queue);
    expect(message.attributes).toEqual({ tenant: "acme", traceparent });
  });

  it("a message the Azure SDK sent with a Diagnostic-Id is linked to that trace", async () => {
    const queue = await under.newQueue();
    const diagnosticId = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    const sdk = new ServiceBusClient(server.connectionString());
    try {
      const sender = sdk.createSender(queue);
      await sender.sendMessages({
        body: "from the Azure SDK",
        applicationProperties: { "Diagnostic-Id": diagnosticId },
      });
      await sender.close();
    } finally {
      await sdk.close();
    }
    const message = await receiveOne(under.consumer(), queue);
    expect(message.attributes["Diagnostic-Id"]).toBe(diagnosticId);
    const receive = only(under.sdk().spans(), `receive ${queue}`);
    expect(receive.links.map((link) => [link.context.traceId, link.context.spanId])).toEqual([
      ["0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"],
    ]);
  });
});
