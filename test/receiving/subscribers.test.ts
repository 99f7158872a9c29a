import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFAULT_SUBSCRIBER_RETRY, type DeliveryContext, defineEvent } from "../../src/receiving/index.js";
import { OrderShipped, orderShipped, receiving } from "./harness.js";
import { STORE_KINDS } from "./stores.js";

/** A subscriber `billing` that fails its first `failures` attempts, recording every attempt. */
function failingFirst(
  failures: number,
  attempts: DeliveryContext[],
  error: () => Error = () => new Error("down"),
) {
  return () => [
    {
      name: "billing",
      events: [OrderShipped],
      handle: (_event: unknown, context: DeliveryContext) => {
        attempts.push(context);
        if (attempts.length <= failures) throw error();
      },
    },
  ];
}

const HOUR = 3_600_000;

describe.each(STORE_KINDS)("subscribers ($name store)", (kind) => {
  it("a failed attempt is retried by a later tick after its backoff, with the same delivery id", async () => {
    const attempts: DeliveryContext[] = [];
    const setup = await receiving(kind, {
      subscribers: failingFirst(2, attempts),
      receiver: { retryPolicy: { initialDelayMs: 1_000, multiplier: 2, jitter: false } },
    });
    await setup.send(orderShipped("o-1"));
    await setup.receiver.tick();
    expect(attempts.map((a) => a.attempt)).toEqual([1]);
    // No retry within the same moment, nor before the backoff.
    await setup.receiver.tick();
    await setup.clock.advance(999);
    await setup.receiver.tick();
    expect(attempts).toHaveLength(1);
    await setup.clock.advance(1);
    await setup.receiver.tick();
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2]);
    await setup.clock.advance(1_999);
    await setup.receiver.tick();
    expect(attempts).toHaveLength(2);
    await setup.clock.advance(1);
    await setup.receiver.tick();
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    expect(new Set(attempts.map((a) => a.deliveryId)).size).toBe(1);
    expect(attempts[0]).toMatchObject({
      eventName: "OrderShipped",
      eventId: "o-1",
      queue: "warehouse_queue",
    });
    // It succeeded: it never runs again.
    await setup.clock.advance(10 * HOUR);
    await setup.receiver.tick();
    expect(attempts).toHaveLength(3);
    expect(await setup.store.query("SELECT id FROM qr_deliveries")).toEqual([]);
  });

  it("one that gives up marks its delivery failed, listed under the delivery's id with the error's code", async () => {
    const attempts: DeliveryContext[] = [];
    const setup = await receiving(kind, {
      subscribers: failingFirst(99, attempts, () =>
        Object.assign(new Error(`card ${"4111"} declined`), { code: "CARD_DECLINED" }),
      ),
      receiver: { retryPolicy: { maxAttempts: 3, initialDelayMs: 1_000, jitter: false } },
    });
    await setup.send(orderShipped("o-1"));
    for (let i = 0; i < 6; i++) {
      await setup.receiver.tick();
      await setup.clock.advance(10_000);
    }
    expect(attempts).toHaveLength(3);
    const items = await setup.receiver.deliveries.list();
    expect(items).toEqual([
      {
        id: attempts[0]!.deliveryId,
        kind: "delivery",
        status: "failed",
        label: "subscriber billing · OrderShipped",
        reason: "CARD_DECLINED",
      },
    ]);
    expect(JSON.stringify(await setup.store.query("SELECT * FROM qr_deliveries"))).not.toContain("4111");
  });

  it("an error without a code is recorded by its name", async () => {
    const setup = await receiving(kind, {
      subscribers: failingFirst(99, [], () => new TypeError("x is undefined")),
      receiver: { retryPolicy: { maxAttempts: 1 } },
    });
    await setup.send(orderShipped("o-1"));
    await setup.receiver.tick();
    expect(await setup.receiver.deliveries.list()).toMatchObject([{ reason: "TypeError" }]);
  });

  it("with the default policy, fails after 2 to 20 attempts, the last within 96 hours of the first", async () => {
    const attempts: number[] = [];
    const setup = await receiving(kind, {
      subscribers: () => [
        {
          name: "billing",
          events: [OrderShipped],
          handle: () => {
            attempts.push(setup.clock.now());
            throw new Error("down");
          },
        },
      ],
    });
    await setup.send(orderShipped("o-1"));
    for (let minutes = 0; minutes < 100 * 60; minutes += 5) {
      await setup.receiver.tick();
      if ((await setup.receiver.deliveries.list()).length > 0) break;
      await setup.clock.advance(5 * 60_000);
    }
    expect(await setup.receiver.deliveries.list()).toHaveLength(1);
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(attempts.length).toBeLessThanOrEqual(20);
    expect(attempts.length).toBe(DEFAULT_SUBSCRIBER_RETRY.maxAttempts);
    expect(attempts.at(-1)! - attempts[0]!).toBeLessThanOrEqual(96 * HOUR);
  });

  it("a failed delivery runs again only when retried, at once, with a fresh budget", async () => {
    const attempts: DeliveryContext[] = [];
    const setup = await receiving(kind, {
      subscribers: failingFirst(1, attempts),
      receiver: { retryPolicy: { maxAttempts: 1 } },
    });
    await setup.send(orderShipped("o-1"));
    await setup.receiver.tick();
    await setup.clock.advance(30 * 24 * HOUR);
    await setup.receiver.tick();
    expect(attempts).toHaveLength(1);
    const [failed] = await setup.receiver.deliveries.list();
    await setup.receiver.deliveries.retry(failed!.id);
    expect(await setup.receiver.deliveries.list()).toEqual([]);
    await setup.receiver.tick();
    expect(attempts.map((a) => [a.deliveryId, a.attempt])).toEqual([
      [failed!.id, 1],
      [failed!.id, 1],
    ]);
    expect(await setup.store.query("SELECT id FROM qr_deliveries")).toEqual([]);
  });

  it("each subscriber has its own delivery: one failing does not hold back another", async () => {
    const ran: string[] = [];
    const setup = await receiving(kind, {
      receiver: { retryPolicy: { maxAttempts: 1 } },
      subscribers: () => [
        { name: "billing", events: [OrderShipped], handle: () => void ran.push("billing") },
        {
          name: "shipping",
          events: [OrderShipped],
          handle: () => {
            ran.push("shipping");
            throw new Error("down");
          },
        },
      ],
    });
    await setup.send(orderShipped("o-1"));
    await setup.receiver.tick();
    expect(ran.sort()).toEqual(["billing", "shipping"]);
    expect(await setup.receiver.deliveries.list()).toMatchObject([
      { label: "subscriber shipping · OrderShipped" },
    ]);
  });

  it("an attempt that takes longer than its timeout is aborted and counts as failed", async () => {
    const signals: AbortSignal[] = [];
    const setup = await receiving(kind, {
      receiver: { retryPolicy: { maxAttempts: 1 } },
      subscribers: () => [
        {
          name: "slow",
          events: [OrderShipped],
          timeoutMs: 5_000,
          handle: (_event, context) => {
            signals.push(context.signal);
            return new Promise<void>(() => undefined);
          },
        },
      ],
    });
    await setup.send(orderShipped("o-1"));
    const tick = setup.receiver.tick();
    await expect.poll(() => signals.length).toBe(1);
    await setup.clock.advance(5_000);
    await tick;
    expect(signals[0]!.aborted).toBe(true);
    expect(await setup.receiver.deliveries.list()).toMatchObject([
      { label: "subscriber slow · OrderShipped", reason: "timeout" },
    ]);
  });

  it("hands subscribers the kept value as read back from the outbox (as JSON)", async () => {
    const Dated = defineEvent("Dated", {
      schema: z.object({ at: z.string() }).transform(({ at }) => ({ at: new Date(at) })),
    });
    const handled: unknown[] = [];
    const setup = await receiving(kind, {
      queues: (client) => [{ name: "dated", client, queue: "warehouse", idAt: "id", events: [Dated] }],
      subscribers: () => [{ name: "log", events: [Dated], handle: (event) => void handled.push(event) }],
    });
    await setup.send(JSON.stringify({ id: 1, at: "2026-12-01T10:00:00.000Z" }));
    await setup.receiver.tick();
    expect(handled).toEqual([{ at: "2026-12-01T10:00:00.000Z" }]);
  });

  it("runs at most `concurrency` attempts at once, and the tick resolves once every first attempt has run", async () => {
    let running = 0;
    let most = 0;
    let done = 0;
    const setup = await receiving(kind, {
      receiver: { concurrency: 3 },
      subscribers: () => [
        {
          name: "billing",
          events: [OrderShipped],
          handle: async () => {
            most = Math.max(most, ++running);
            await new Promise((resolve) => setImmediate(resolve));
            running--;
            done++;
          },
        },
      ],
    });
    await setup.send(...Array.from({ length: 30 }, (_, i) => orderShipped(i)));
    await setup.receiver.tick();
    expect(done).toBe(30);
    expect(most).toBe(3);
  });

  it("a receiver runs only its own subscribers' deliveries; another's wait for a receiver that has them", async () => {
    const billing = await receiving(kind);
    const audited: string[] = [];
    const audit = await receiving(kind, {
      testStore: billing.store,
      clock: billing.clock,
      subscribers: () => [
        { name: "audit", events: [OrderShipped], handle: (_e, c) => void audited.push(c.eventId) },
      ],
    });
    await billing.receiver.receiveBatch("warehouse_queue", [{ body: orderShipped("o-1") }], {
      deliver: false,
    });
    await audit.receiver.tick();
    expect(audited).toEqual([]);
    expect(await billing.store.query("SELECT subscriber, status FROM qr_deliveries")).toEqual([
      { subscriber: "billing", status: "pending" },
    ]);
    await billing.receiver.tick();
    expect(billing.handled.map((h) => h.context.eventId)).toEqual(["o-1"]);
  });
});

/** A gate a test opens: `wait()` resolves once `open()` is called. */
function gate(): { wait: () => Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait: () => opened, open };
}

describe.each(STORE_KINDS)("claims of deliveries ($name store)", (kind) => {
  it("ids are never used again: each event's delivery, and each parked message, has an id of its own", async () => {
    const setup = await receiving(kind);
    for (const id of ["a", "b", "c"]) {
      await setup.send(orderShipped(id));
      await setup.receiver.tick();
    }
    expect(new Set(setup.handled.map((h) => h.context.deliveryId)).size).toBe(3);
    await setup.send("garbage 1");
    await setup.receiver.tick();
    const [first] = await setup.receiver.deliveries.list();
    await setup.receiver.deliveries.retry(first!.id);
    await setup.send(orderShipped("d", { orderId: 1 }));
    await setup.receiver.tick();
    const ids = (await setup.receiver.deliveries.list()).map((item) => item.id);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
  });

  it("no second worker runs a delivery while the first's attempt is under way", async () => {
    const started: string[] = [];
    const hold = gate();
    const first = await receiving(kind, {
      subscribers: () => [
        {
          name: "billing",
          events: [OrderShipped],
          timeoutMs: 10_000,
          handle: async () => {
            started.push("first");
            await hold.wait();
          },
        },
      ],
    });
    const second = await receiving(kind, {
      testStore: first.store,
      clock: first.clock,
      subscribers: () => [
        {
          name: "billing",
          events: [OrderShipped],
          timeoutMs: 10_000,
          handle: () => void started.push("second"),
        },
      ],
    });
    await first.send(orderShipped("o-1"));
    const tick = first.receiver.tick();
    await expect.poll(() => started.length).toBe(1);
    await first.clock.advance(9_999);
    await second.receiver.tick();
    expect(started).toEqual(["first"]);
    hold.open();
    await tick;
    await first.clock.advance(60_000);
    await second.receiver.tick();
    expect(started).toEqual(["first"]);
  });

  it("a settlement that comes after its claim ended never removes the delivery another worker claimed since", async () => {
    const settle = gate();
    const ran: string[] = [];
    const secondRuns = gate();
    const late = await receiving(kind, {
      subscribers: () => [
        { name: "billing", events: [OrderShipped], timeoutMs: 1_000, handle: () => void ran.push("late") },
      ],
      wrapStore: (store) =>
        new Proxy(store, {
          get(target, key) {
            if (key === "settleDeliveries")
              return async (...args: Parameters<typeof store.settleDeliveries>) => {
                await settle.wait();
                return target.settleDeliveries(...args);
              };
            const value = Reflect.get(target, key);
            return typeof value === "function" ? value.bind(target) : value;
          },
        }),
    });
    const other = await receiving(kind, {
      testStore: late.store,
      clock: late.clock,
      subscribers: () => [
        {
          name: "billing",
          events: [OrderShipped],
          timeoutMs: 1_000,
          handle: async () => {
            ran.push("other");
            await secondRuns.wait();
          },
        },
      ],
    });
    await late.send(orderShipped("o-1"));
    const lateTick = late.receiver.tick();
    await expect.poll(() => ran.length).toBe(1);
    // The late worker's claim ends while its settlement is held up; another worker claims the delivery.
    // A claim lasts twice the attempt's timeout and a second for settling: 3 s here.
    await late.clock.advance(3_001);
    const otherTick = other.receiver.tick();
    await expect.poll(() => ran.length).toBe(2);
    settle.open();
    await lateTick;
    expect(await late.store.query("SELECT id FROM qr_deliveries")).toHaveLength(1);
    secondRuns.open();
    await otherTick;
    expect(await late.store.query("SELECT id FROM qr_deliveries")).toEqual([]);
    expect(ran).toEqual(["late", "other"]);
  });
});

describe.each(STORE_KINDS)("a claim's time ($name store)", (kind) => {
  it("starts an attempt only while its claim leaves room for it; the rest is released, unattempted, for the next tick", async () => {
    // Time moves only when an attempt moves it: each takes 600 ms of a 1 000 ms timeout.
    let time = Date.UTC(2026, 0, 1);
    const clock = { now: () => time, setTimer: () => ({ cancel: () => undefined }) };
    const attempts: number[] = [];
    const setup = await receiving(kind, {
      receiver: { clock, concurrency: 1 },
      subscribers: () => [
        {
          name: "billing",
          events: [OrderShipped],
          timeoutMs: 1_000,
          handle: (_event, context) => {
            attempts.push(context.attempt);
            time += 600;
          },
        },
      ],
    });
    await setup.send(...Array.from({ length: 5 }, (_, i) => orderShipped(i)));
    // A claim lasts 3 s: attempts start while 2 s (a timeout and a second to settle) remain.
    await setup.receiver.tick();
    expect(attempts).toEqual([1, 1]);
    const released = await setup.store.query("SELECT attempts, claimed_until FROM qr_deliveries ORDER BY id");
    expect(released.map((row) => [Number(row.attempts), Number(row.claimed_until)])).toEqual([
      [0, 0],
      [0, 0],
      [0, 0],
    ]);
    await setup.receiver.tick();
    await setup.receiver.tick();
    expect(attempts).toEqual([1, 1, 1, 1, 1]);
    expect(await setup.store.query("SELECT id FROM qr_deliveries")).toEqual([]);
  });
});
