// A producer and a consumer on the embedded default (a SQLite file), printing what they do.
// Run it with `npm run example`; set QUEUE_URL to try another provider, e.g. QUEUE_URL=memory: npm run example.
import { createClient, type ReceivedMessage } from "../src/index.js";

const url = process.env.QUEUE_URL ?? "sqlite:./queue-runtime.db";
const client = await createClient(url);
console.log(`connected to ${url} (${client.providerType}; sessions: ${client.capabilities.sessions})`);

(await client.admin.getQueue("orders")) ??
  (await client.admin.createQueue("orders", { maxDeliveryCount: 3 }));

// The producer: three orders, one of them poisoned.
const ids = await client.sendMessages("orders", [
  { body: JSON.stringify({ order: 1, total: 30 }), contentType: "application/json" },
  {
    body: JSON.stringify({ order: 2, total: 12 }),
    contentType: "application/json",
    attributes: { priority: "high" },
  },
  { body: "not json at all", correlationId: "order-3" },
]);
console.log(`producer: sent ${ids.length} messages`);

// The consumer: completes what it can handle, dead-letters what it never will.
async function handle(message: ReceivedMessage): Promise<void> {
  try {
    const order = message.json<{ order: number; total: number }>();
    console.log(`consumer: order ${order.order} for ${order.total} (delivery ${message.deliveryCount})`);
    await client.completeMessage(message.receiptHandle);
  } catch {
    console.log(`consumer: cannot read message ${message.messageId}, dead-lettering it`);
    await client.deadLetterMessage(message.receiptHandle, "Unreadable", "the body is not JSON");
  }
}

for (;;) {
  const batch = await client.receiveMessages("orders", 10, 1_000);
  if (batch.length === 0) break;
  for (const message of batch) await handle(message);
}

const deadLetterQueue = await client.admin.deadLetterQueueOf("orders");
console.log("orders:", await client.admin.getQueueStats("orders"));
const dead = await client.receiveMessage(deadLetterQueue);
if (dead) {
  console.log(`dead letter: "${dead.text()}" because ${dead.attributes.DeadLetterReason}`);
  await client.completeMessage(dead.receiptHandle);
}
await client.close();
console.log("done");
