// A receiver on a memory queue and one of the two stores, on virtual time, as most tests use it.
import { z } from "zod";
import { createClient, type QueueClient, VirtualClock } from "../../src/index.js";
import {
  type DeliveryContext,
  defineEvent,
  type QueueSource,
  Receiver,
  type ReceiverOptions,
  type ReceivingStore,
  type Subscriber,
} from "../../src/receiving/index.js";
import type { StoreKind, TestStore } from "./stores.js";

export const OrderShipped = defineEvent("OrderShipped", {
  wireName: "order_shipped",
  schema: z.object({
    orderId: z.string(),
    lines: z.array(z.object({ sku: z.string(), quantity: z.number().int().positive() })),
  }),
});

export const InvoiceSent = defineEvent("InvoiceSent", {
  wireName: "invoice_sent",
  schema: z.object({ invoiceId: z.string(), amount: z.number() }),
});

/** A valid `order_shipped` body with id `id`, and anything extra. */
export function orderShipped(id: string | number, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id,
    type: "order_shipped",
    orderId: `order-${id}`,
    lines: [{ sku: "A-1", quantity: 2 }],
    ...extra,
  });
}

/** What a subscriber was handed. */
export interface Handled {
  readonly event: unknown;
  readonly context: DeliveryContext;
}

/** A receiver under test and what surrounds it. */
export interface Receiving {
  readonly clock: VirtualClock;
  readonly client: QueueClient;
  readonly receiver: Receiver;
  readonly store: TestStore;
  /** What the default `billing` subscriber was handed, in order. */
  readonly handled: Handled[];
  /** Sends bodies to the `warehouse` queue. */
  send(...bodies: (string | Uint8Array)[]): Promise<void>;
  /** The `warehouse` queue's active and in-flight counts together: what is still on it. */
  onQueue(queue?: string): Promise<number>;
  /** The ids recorded in received_events, sorted. */
  recorded(): Promise<string[]>;
}

/** What a test may change of the default setup. */
export interface ReceivingSetup {
  readonly queues?: (client: QueueClient) => QueueSource[];
  readonly subscribers?: (handled: Handled[]) => Subscriber[];
  readonly receiver?: Partial<ReceiverOptions>;
  readonly clock?: VirtualClock;
  readonly storeOptions?: Parameters<StoreKind["make"]>[0];
  /** The store to use instead of a fresh one of the kind. */
  readonly testStore?: TestStore;
  /** Puts something between the receiver and its store (the test still looks into the store's tables). */
  readonly wrapStore?: (store: ReceivingStore) => ReceivingStore;
}

let namespace = 0;

/** A receiver reading `warehouse` (as `warehouse_queue`, id at `id`, type at `type`) with a `billing` subscriber of OrderShipped. */
export async function receiving(kind: StoreKind, setup: ReceivingSetup = {}): Promise<Receiving> {
  const clock = setup.clock ?? new VirtualClock();
  const client = await createClient({
    provider: { type: "memory", name: `receiving-${namespace++}`, clock },
  });
  const store = setup.testStore ?? (await kind.make(setup.storeOptions));
  const handled: Handled[] = [];
  const queues = setup.queues?.(client) ?? [
    {
      name: "warehouse_queue",
      client,
      queue: "warehouse",
      idAt: "id",
      typeAt: "type",
      events: [OrderShipped, InvoiceSent],
    },
  ];
  const subscribers = setup.subscribers?.(handled) ?? [
    {
      name: "billing",
      events: [OrderShipped],
      handle: (event: unknown, context: DeliveryContext) => {
        handled.push({ event, context });
      },
    },
  ];
  const receiver = new Receiver({
    store: setup.wrapStore?.(store.store) ?? store.store,
    clock,
    queues,
    subscribers,
    ...setup.receiver,
  });
  return {
    clock,
    client,
    receiver,
    store,
    handled,
    async send(...bodies) {
      await client.sendMessages("warehouse", bodies);
    },
    async onQueue(queue = "warehouse") {
      const stats = await client.admin.getQueueStats(queue);
      return stats.active + stats.inFlight + stats.delayed;
    },
    async recorded() {
      const rows = await store.query("SELECT id FROM qr_received_events ORDER BY id");
      return rows.map((row) => String(row.id));
    },
  };
}
