// The receiving pipeline end to end on the embedded default: a queue in one SQLite file, events
// kept in another with an outbox, a subscriber that fails once and is retried, and a message that
// cannot be read, parked for an operator. Run it with `npm run example:receiving`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { createClient } from "../src/index.js";
import { defineEvent, Receiver, sqliteStore } from "../src/receiving/index.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-receiving-example-"));
const OrderShipped = defineEvent("OrderShipped", {
  wireName: "order_shipped",
  schema: z.object({ orderId: z.string(), total: z.number() }),
});

const queues = await createClient(`sqlite:${join(directory, "queues.db")}`);
let billingUp = false;
const receiver = new Receiver({
  store: sqliteStore(join(directory, "app.db")),
  queues: [
    {
      name: "warehouse_queue",
      client: queues,
      queue: "warehouse",
      idAt: "id",
      typeAt: "type",
      events: [OrderShipped],
    },
  ],
  subscribers: [
    {
      name: "billing",
      events: [OrderShipped],
      retryPolicy: { initialDelayMs: 200, jitter: false },
      async handle(event, ctx) {
        if (!billingUp) throw Object.assign(new Error("billing is down"), { code: "BILLING_DOWN" });
        console.log(`billing: invoiced ${JSON.stringify(event)} (attempt ${ctx.attempt}, ${ctx.deliveryId})`);
      },
    },
  ],
});

await queues.sendMessages("warehouse", [
  JSON.stringify({
    id: "evt-1",
    type: "order_shipped",
    orderId: "A-1",
    total: 42,
    internalNote: "dropped by the schema",
  }),
  JSON.stringify({ id: "evt-1", type: "order_shipped", orderId: "A-1", total: 42 }), // a copy: a repeat
  JSON.stringify({ id: "evt-2", type: "order_returned", orderId: "A-1" }), // a type nobody lists: parked
]);

await receiver.tick();
console.log("after the first tick:", receiver.metrics);
console.log(
  "failed and parked:",
  (await receiver.deliveries.list()).map(({ id, label, reason }) => ({ id, label, reason })),
);

billingUp = true;
await new Promise((resolve) => setTimeout(resolve, 250)); // the retry's backoff
await receiver.tick();
console.log(
  "after the retry:",
  (await receiver.deliveries.list()).map(({ id, label, reason }) => ({ id, label, reason })),
);
// An operator sees the same with `queue-runtime deliveries list --receiving <app.db>`.

await receiver.close();
await queues.close();
rmSync(directory, { recursive: true, force: true });
