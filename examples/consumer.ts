// A producer and a long-running consumer on the embedded default (a SQLite file): a handler that
// fails once is tried again after a backoff, a poisoned message is dead-lettered at once, and the
// consumer stops cleanly once the queue is drained (or at SIGTERM / Ctrl-C, as a service would).
// Run it with `npm run example:consumer`; it can run again and again on the same file. Set
// QUEUE_URL to try another provider, e.g. QUEUE_URL=memory: npm run example:consumer.
import { once } from "node:events";
import { createClient, DeadLetterError } from "../src/index.js";

interface Parcel {
  parcel: number;
  weightKg: number;
}

const url = process.env.QUEUE_URL ?? "sqlite:./queue-runtime.db";
const client = await createClient(url);
const queue = "parcels";
(await client.admin.getQueue(queue)) ?? (await client.admin.createQueue(queue, { maxDeliveryCount: 5 }));

// The producer: four parcels, one too heavy for the first try and one that can never ship.
const parcels: Parcel[] = [
  { parcel: 1, weightKg: 2 },
  { parcel: 2, weightKg: 40 },
  { parcel: 3, weightKg: -1 },
  { parcel: 4, weightKg: 5 },
];
await client.sendMessages(
  queue,
  parcels.map((parcel) => JSON.stringify(parcel)),
);
console.log(`producer: sent ${parcels.length} parcels`);

// The consumer: up to 4 handlers at once, a failed delivery back after 200 ms, then 400, 800, ...
const consumer = client.consume(
  queue,
  async (message, context) => {
    const { parcel, weightKg } = context.value as Parcel;
    if (weightKg <= 0) throw new DeadLetterError("InvalidWeight", `parcel ${parcel} weighs ${weightKg} kg`);
    if (weightKg > 30 && message.deliveryCount === 1) throw new Error("the heavy-goods desk is busy");
    await new Promise((resolve) => setTimeout(resolve, 50)); // the work itself
    console.log(`consumer: shipped parcel ${parcel} (delivery ${message.deliveryCount})`);
  },
  { concurrency: 4, retry: { initialDelayMs: 200, maxDelayMs: 2_000 }, receiveWaitMs: 1_000 },
);
consumer.on("failed", (error, message) =>
  console.log(
    `consumer: delivery ${message.deliveryCount} of a parcel failed (${String(error)}); it comes back later`,
  ),
);
consumer.on("error", (error) => console.error(`consumer: ${error.code}: ${error.message}`));

// A service stops at SIGTERM; this example also stops once nothing is left to do.
for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => void consumer.stop());
consumer.on("idle", async () => {
  const stats = await client.admin.getQueueStats(queue);
  if (stats.active + stats.inFlight + stats.delayed === 0) await consumer.stop();
});
await once(consumer, "stopped");
console.log("consumer:", consumer.metrics);

// What could never ship waits in the dead-letter queue with its reason; this example clears it.
const deadLetterQueue = await client.admin.deadLetterQueueOf(queue);
for (const dead of await client.receiveMessages(deadLetterQueue, 10)) {
  console.log(
    `dead letter: ${dead.text()} because ${dead.attributes.DeadLetterReason}: ${dead.attributes.DeadLetterErrorDescription}`,
  );
  await client.completeMessage(dead.receiptHandle);
}
await client.close();
console.log("done");
