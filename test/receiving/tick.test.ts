import { describe, expect, it } from "vitest";
import type { Clock, QueueClient, ReceivedMessage, TimerHandle } from "../../src/index.js";
import { RETENTION_MS } from "../../src/receiving/index.js";
import { OrderShipped, orderShipped, receiving } from "./harness.js";
import { STORE_KINDS } from "./stores.js";

/** A client that records every receive it is asked for, and runs `during` inside each. */
function recordingReceives(
  client: QueueClient,
  calls: unknown[][],
  during: () => void = () => undefined,
): QueueClient {
  return new Proxy(client, {
    get(target, key) {
      if (key === "receiveMessages")
        return (...args: Parameters<QueueClient["receiveMessages"]>): Promise<ReceivedMessage[]> => {
          calls.push(args);
          during();
          return target.receiveMessages(...args);
        };
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The default queue, read through a client that records its receives. */
function recordedWarehouse(calls: unknown[][], during?: () => void) {
  return (client: QueueClient) => [
    {
      name: "warehouse_queue",
      client: recordingReceives(client, calls, during),
      queue: "warehouse",
      idAt: "id",
      typeAt: "type",
      events: [OrderShipped],
    },
  ];
}

/** A clock that moves only when a test sets it, and runs no timers: for budgets measured inside a tick. */
class SteppedClock implements Clock {
  constructor(public time = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.time;
  }
  setTimer(): TimerHandle {
    return { cancel: () => undefined };
  }
}

const orders = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => orderShipped(`o-${from + i}`));

describe.each(STORE_KINDS)("the tick ($name store)", (kind) => {
  it("asks each queue for 10 at a time without waiting, again while a batch comes back full", async () => {
    const calls: unknown[][] = [];
    const setup = await receiving(kind, {
      queues: recordedWarehouse(calls),
    });
    await setup.send(...orders(25));
    await setup.receiver.tick();
    expect(calls).toEqual([
      ["warehouse", 10, 0],
      ["warehouse", 10, 0],
      ["warehouse", 10, 0],
    ]);
    expect(setup.handled).toHaveLength(25);
  });

  it("asks at most 10 times a tick; the rest waits for the next", async () => {
    const calls: unknown[][] = [];
    const setup = await receiving(kind, {
      queues: recordedWarehouse(calls),
    });
    await setup.send(...orders(150));
    await setup.receiver.tick();
    expect(calls).toHaveLength(10);
    expect(setup.handled).toHaveLength(100);
    expect(await setup.onQueue()).toBe(50);
    await setup.receiver.tick();
    expect(setup.handled).toHaveLength(150);
  });

  it("asks for no further batch once the tick's budget is spent; the batch in hand is still kept", async () => {
    const clock = new SteppedClock();
    const calls: unknown[][] = [];
    const setup = await receiving(kind, {
      receiver: { clock },
      queues: recordedWarehouse(calls, () => {
        clock.time += 400;
      }),
    });
    await setup.send(...orders(60));
    await setup.receiver.tick({ budgetMs: 1_000 });
    // Asked at 0, 400 and 800 ms; at 1 200 ms the budget is spent.
    expect(calls).toHaveLength(3);
    expect(setup.handled).toHaveLength(30);
    await setup.receiver.tick({ budgetMs: 0 });
    expect(calls).toHaveLength(3);
    await setup.receiver.tick({ budgetMs: 5_000 });
    expect(setup.handled).toHaveLength(60);
  });

  it("reads every queue it lists, and leaves alone the queues of other receivers", async () => {
    const setup = await receiving(kind, {
      queues: (client) => [
        { name: "east", client, queue: "warehouse", idAt: "id", typeAt: "type", events: [OrderShipped] },
        { name: "west", client, queue: "warehouse-west", idAt: "id", typeAt: "type", events: [OrderShipped] },
      ],
    });
    await setup.send(...orders(3));
    await setup.client.sendMessages("warehouse-west", orders(2, 10));
    await setup.client.sendMessage("unrelated", "x");
    await setup.receiver.tick();
    expect(setup.handled.map((h) => h.context.queue).sort()).toEqual([
      "east",
      "east",
      "east",
      "west",
      "west",
    ]);
    expect(await setup.onQueue("unrelated")).toBe(1);
  });

  it("a started receiver ticks at once and then at least every 10 s, until stopped", async () => {
    const setup = await receiving(kind, { receiver: { intervalMs: 10_000 } });
    setup.receiver.start();
    await expect.poll(() => setup.receiver.metrics.ticks).toBe(1);
    await setup.send(orderShipped("later"));
    await setup.clock.advance(10_000);
    await expect.poll(() => setup.handled.length).toBe(1);
    await setup.receiver.stop();
    const ticks = setup.receiver.metrics.ticks;
    await setup.send(orderShipped("after stop"));
    await setup.clock.advance(60_000);
    expect(setup.receiver.metrics.ticks).toBe(ticks);
    expect(setup.handled).toHaveLength(1);
  });

  it("a started receiver whose queue filled every batch ticks again at once", async () => {
    const setup = await receiving(kind);
    await setup.send(...orders(250));
    setup.receiver.start();
    await expect.poll(() => setup.handled.length).toBe(250);
    await setup.receiver.close();
  });

  it("a started receiver reports a failed tick to onError and goes on ticking", async () => {
    const errors: unknown[] = [];
    let fail = true;
    const setup = await receiving(kind, {
      receiver: { onError: (error) => errors.push(error) },
      queues: (client) => [
        {
          name: "warehouse_queue",
          client: new Proxy(client, {
            get(target, key) {
              if (key === "receiveMessages" && fail)
                return () => Promise.reject(new Error("queue unreachable"));
              const value = Reflect.get(target, key);
              return typeof value === "function" ? value.bind(target) : value;
            },
          }),
          queue: "warehouse",
          idAt: "id",
          typeAt: "type",
          events: [OrderShipped],
        },
      ],
    });
    await setup.send(orderShipped("x"));
    setup.receiver.start();
    await expect.poll(() => errors.length).toBe(1);
    fail = false;
    await setup.clock.advance(1_000);
    await expect.poll(() => setup.handled.length).toBe(1);
    await setup.receiver.close();
  });

  it("a closed receiver refuses ticks and batches", async () => {
    const setup = await receiving(kind);
    await setup.receiver.close();
    await expect(setup.receiver.tick()).rejects.toMatchObject({ code: "ClientClosed" });
    await expect(setup.receiver.receiveBatch("warehouse_queue", [])).rejects.toMatchObject({
      code: "ClientClosed",
    });
    expect(() => setup.receiver.start()).toThrow(expect.objectContaining({ code: "ClientClosed" }));
  });
});

describe.each(STORE_KINDS)("retention ($name store)", (kind) => {
  it("a recorded id is deleted by the first tick more than 30 days after it was recorded", async () => {
    const setup = await receiving(kind);
    await setup.send(orderShipped("o-1"));
    await setup.receiver.tick();
    await setup.clock.advance(RETENTION_MS);
    await setup.send(orderShipped("o-1"));
    await setup.receiver.tick();
    // Exactly 30 days on, the id is still recorded: the copy is a repeat.
    expect(setup.handled).toHaveLength(1);
    expect(await setup.recorded()).toEqual(["o-1"]);
    await setup.clock.advance(1);
    await setup.receiver.tick();
    expect(await setup.recorded()).toEqual([]);
  });

  it("a dismissed item is deleted by the first tick more than 30 days after its dismissal", async () => {
    const setup = await receiving(kind, {
      receiver: { retryPolicy: { maxAttempts: 1 } },
      subscribers: () => [
        {
          name: "billing",
          events: [OrderShipped],
          handle: () => {
            throw new Error("down");
          },
        },
      ],
    });
    await setup.send("not json", orderShipped("o-1"));
    await setup.receiver.tick();
    const items = await setup.receiver.deliveries.list();
    expect(items.map((item) => item.kind).sort()).toEqual(["delivery", "parked"]);
    await setup.clock.advance(1_000);
    for (const item of items) await setup.receiver.deliveries.dismiss(item.id);
    await setup.clock.advance(RETENTION_MS);
    await setup.receiver.tick();
    expect(await setup.store.query("SELECT id FROM qr_parked_messages")).toHaveLength(1);
    expect(await setup.store.query("SELECT id FROM qr_deliveries")).toHaveLength(1);
    await setup.clock.advance(1);
    await setup.receiver.tick();
    expect(await setup.store.query("SELECT id FROM qr_parked_messages")).toEqual([]);
    expect(await setup.store.query("SELECT id FROM qr_deliveries")).toEqual([]);
    expect(await setup.store.query("SELECT id FROM qr_outbox")).toEqual([]);
  });

  it("a failed item that is not dismissed is kept however old", async () => {
    const setup = await receiving(kind);
    await setup.send("not json");
    await setup.receiver.tick();
    await setup.clock.advance(RETENTION_MS * 3);
    await setup.receiver.tick();
    expect(await setup.receiver.deliveries.list()).toHaveLength(1);
  });
});
