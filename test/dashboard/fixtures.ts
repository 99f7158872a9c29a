// What the dashboard tests share: a scratch directory, a queue store with a dead letter, a
// receiving store with a parked message and a failed delivery, and the dashboard on a free port.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect } from "vitest";
import { openOperatorClient } from "../../src/cli/operator-client.js";
import { newToken } from "../../src/dashboard/access.js";
import { Dashboard } from "../../src/dashboard/dashboard.js";
import { DashboardServer } from "../../src/dashboard/dashboard-server.js";
import { createClient, type QueueClient } from "../../src/index.js";
import {
  Deliveries,
  type DeliveryItem,
  defineEvent,
  Receiver,
  type StandardSchemaV1,
  sqliteStore,
} from "../../src/receiving/index.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Runs `cleanup` once the test file ends, after those registered later. */
export function afterFile(cleanup: () => Promise<void> | void): void {
  cleanups.push(cleanup);
}

let directory: string | undefined;
let counter = 0;

/** A fresh file path in a directory removed after the test file. */
export function scratchFile(name: string): string {
  if (directory === undefined) {
    const made = mkdtempSync(join(tmpdir(), "queue-runtime-dashboard-"));
    directory = made;
    afterFile(() => rmSync(made, { recursive: true, force: true }));
  }
  return join(directory, `${counter++}-${name}`);
}

/** The body of the message that is dead-lettered, and its reason and description. */
export const DEAD_LETTER = {
  body: '{"order":"o-7","note":"<img src=x onerror=alert(1)>"}',
  reason: "PaymentDeclined",
  description: "the card was declined twice",
} as const;

/**
 * A SQLite queue store at a fresh path holding `orders` (one message) and its dead-letter queue
 * `orders-dlq` (one dead letter, {@link DEAD_LETTER}); resolves the provider URL.
 */
export async function queueStore(): Promise<string> {
  const url = `sqlite:${scratchFile("queues.db")}`;
  const client = await createClient(url);
  try {
    await client.admin.createQueue("orders");
    await client.sendMessage("orders", DEAD_LETTER.body);
    const received = await client.receiveMessage("orders");
    await client.deadLetterMessage(received!.receiptHandle, DEAD_LETTER.reason, DEAD_LETTER.description);
    await client.sendMessage("orders", '{"order":"o-8"}');
  } finally {
    await client.close();
  }
  return url;
}

/** A schema that takes any body: the failed delivery comes from the subscriber, not from reading. */
const anything: StandardSchemaV1<unknown, unknown> = {
  "~standard": { version: 1, vendor: "dashboard-test", validate: (value) => ({ value }) },
};
const OrderShipped = defineEvent("OrderShipped", { wireName: "order_shipped", schema: anything });

/** The receiver's two failed items, as `deliveries list` shows them. */
export interface ReceiverItems {
  readonly parked: DeliveryItem;
  readonly delivery: DeliveryItem;
}

/**
 * A SQLite receiving store at a fresh path where one tick parked a message of a type no event
 * declares and failed a subscriber's delivery; resolves its path and the two items.
 */
export async function receivingStore(): Promise<{ path: string; items: ReceiverItems }> {
  const path = scratchFile("receiving.db");
  const client = await createClient({
    provider: { type: "memory", name: `dashboard-receiving-${counter++}` },
  });
  const failures: unknown[] = [];
  const receiver = new Receiver({
    store: sqliteStore(path),
    queues: [
      { name: "warehouse", client, queue: "warehouse", idAt: "id", typeAt: "type", events: [OrderShipped] },
    ],
    subscribers: [
      {
        name: "billing",
        events: [OrderShipped],
        retryPolicy: { maxAttempts: 1 },
        handle: () => {
          throw Object.assign(new Error("card declined"), { code: "CardDeclined" });
        },
      },
    ],
    onError: (error) => failures.push(error),
  });
  try {
    await client.sendMessages("warehouse", [
      JSON.stringify({ id: "u-1", type: "order_cancelled" }),
      JSON.stringify({ id: "e-1", type: "order_shipped" }),
    ]);
    await receiver.tick();
    expect(failures).toEqual([]);
    const listed = await receiver.deliveries.list();
    const parked = listed.find((item) => item.kind === "parked");
    const delivery = listed.find((item) => item.kind === "delivery");
    expect(parked).toBeDefined();
    expect(delivery).toBeDefined();
    return { path, items: { parked: parked!, delivery: delivery! } };
  } finally {
    await receiver.close();
    await client.close();
  }
}

/** A dashboard started in this process on a free loopback port. */
export interface RunningDashboard {
  readonly endpoint: string;
  readonly token: string;
  readonly client: QueueClient;
  close(): Promise<void>;
}

/**
 * Starts a dashboard over the provider `provider` names (opened as the command opens it) or over a
 * client, and over the SQLite receiving store at `receiving` when given; closed after the file.
 */
export async function startDashboard(
  provider: string | QueueClient,
  options: { receiving?: string; refreshMs?: number } = {},
): Promise<RunningDashboard> {
  const client = typeof provider === "string" ? await openOperatorClient(provider) : provider;
  const store = options.receiving === undefined ? undefined : sqliteStore(options.receiving);
  await store?.open();
  const token = newToken();
  const dashboard = new Dashboard({
    client,
    token,
    loopbackOnly: true,
    refreshMs: options.refreshMs ?? 100,
    ...(store === undefined ? {} : { deliveries: new Deliveries(store) }),
  });
  const server = await DashboardServer.start(dashboard, "127.0.0.1", 0);
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= server
      .close()
      .then(() => store?.close())
      .then(() => client.close());
    return closed;
  };
  afterFile(close);
  return { endpoint: server.endpoint, token, client, close };
}
