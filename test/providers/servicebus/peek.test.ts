import { ServiceBusClient } from "@azure/service-bus";
import Long from "long";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { QueueClient } from "../../../src/core/queue-client.js";
import { DEAD_LETTER_ATTRIBUTES } from "../../../src/rules/dead-letters.js";
import { useServiceBusServer } from "./server.js";

const server = useServiceBusServer();
let client: QueueClient;
let sdk: ServiceBusClient;
beforeAll(async () => {
  client = await server.client();
  sdk = new ServiceBusClient(server.connectionString());
});
afterAll(async () => {
  await client?.close();
  await sdk?.close();
});

/** The peeked messages of `queue` as `body:state`. */
async function states(queue: string, fromSequence?: string): Promise<string[]> {
  const peeked = await client.admin.peekMessages(queue, 10, fromSequence);
  return peeked.map((message) => `${message.text()}:${message.state}`);
}

describe("servicebus provider: peekMessages", () => {
  test("a deferred message peeks as delayed; one whose time to live ended is left out, though Service Bus still shows it", async () => {
    await client.admin.createQueue("peek-states");
    await client.sendMessages("peek-states", [
      "deferred",
      { body: "short-lived", timeToLiveMs: 1_000 },
      "ready",
    ]);
    const receiver = sdk.createReceiver("peek-states");
    const [deferred] = await receiver.receiveMessages(1, { maxWaitTimeInMs: 5_000 });
    expect(deferred?.body.toString()).toBe("deferred");
    await receiver.deferMessage(deferred!);
    // Time to live is measured by the clock: only its passing makes the message expire.
    await new Promise((resolve) => setTimeout(resolve, 1_200));

    expect(await states("peek-states")).toEqual(["deferred:delayed", "ready:active"]);
    const shown = await receiver.peekMessages(10, { fromSequenceNumber: Long.ZERO });
    expect(shown.map((message) => message.body.toString())).toEqual(["deferred", "short-lived", "ready"]);
    await receiver.close();
  });

  test("a dead-letter queue peeks like any queue; sequence numbers are 64-bit text both ways", async () => {
    await client.admin.createQueue("peek-dead");
    await client.sendMessage("peek-dead", "poison");
    const message = await client.receiveMessage("peek-dead", 5_000);
    await client.deadLetterMessage(message!.receiptHandle, "Unreadable");
    const deadLetterQueue = await client.admin.deadLetterQueueOf("peek-dead");

    const [dead] = await client.admin.peekMessages(deadLetterQueue, 10);
    expect(dead?.text()).toBe("poison");
    expect(dead?.attributes).toMatchObject({
      [DEAD_LETTER_ATTRIBUTES.reason]: "Unreadable",
      [DEAD_LETTER_ATTRIBUTES.sourceQueue]: "peek-dead",
    });
    expect(await states(deadLetterQueue, dead?.sequenceNumber)).toEqual(["poison:active"]);
    expect(await states(deadLetterQueue, "9223372036854775807")).toEqual([]);
  });
});
