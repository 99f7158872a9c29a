import { SendMessageCommand, SQSClient } from "@aws-sdk/client-sqs";
import { describe, expect, it } from "vitest";
import { createClient } from "../../src/index.js";
import { CREDENTIALS, useSqsServer } from "../providers/sqs/server.js";
import { receiveOne, telemetryCases } from "./cases.js";
import { only } from "./otel.js";

const server = useSqsServer();

describe("telemetry on sqs through serve", () => {
  const under = telemetryCases({
    client: () =>
      createClient({
        provider: { type: "sqs", endpoint: server.endpoint(), region: "us-east-1", credentials: CREDENTIALS },
      }),
    system: "aws_sqs",
    network: true,
  });

  it("a message with SQS's 10 attributes already is sent without the context, and its span says why", async () => {
    const queue = await under.newQueue();
    const attributes = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`a${i}`, `v${i}`]));
    await under.producer().sendMessage(queue, { body: "full", attributes });
    const message = await receiveOne(under.consumer(), queue);
    expect(message.attributes).toEqual(attributes);
    const send = only(under.sdk().spans(), `send ${queue}`);
    expect(send.events.map((event) => event.name)).toEqual(["queue_runtime.context_not_injected"]);
    expect(String(send.events[0]?.attributes?.["queue_runtime.reason"])).toContain("10 attributes");
  });

  it("a message the AWS SDK sent with an X-Ray AWSTraceHeader is linked to that trace", async () => {
    const queue = await under.newQueue();
    const sqs = new SQSClient({ endpoint: server.endpoint(), region: "us-east-1", credentials: CREDENTIALS });
    try {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: `${server.endpoint()}/000000000000/${queue}`,
          MessageBody: "from the AWS SDK",
          MessageSystemAttributes: {
            AWSTraceHeader: {
              DataType: "String",
              StringValue: "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1",
            },
          },
        }),
      );
    } finally {
      sqs.destroy();
    }
    await receiveOne(under.consumer(), queue);
    const receive = only(under.sdk().spans(), `receive ${queue}`);
    expect(receive.links.map((link) => [link.context.traceId, link.context.spanId])).toEqual([
      ["5759e988bd862e3fe1be46a994272793", "53995c3f42cd8ad8"],
    ]);
  });
});
