import pg from "pg";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { createClient } from "../../src/index.js";
import {
  defineEvent,
  type EventDefinition,
  postgresStore,
  Receiver,
  type ReceiverOptions,
  sqliteStore,
} from "../../src/receiving/index.js";
import { InvoiceSent, OrderShipped, orderShipped, receiving } from "./harness.js";
import { POSTGRES_URL, postgresKind, postgresSchema, STORE_KINDS, sqliteFile } from "./stores.js";

const client = await createClient({ provider: { type: "memory" } });
const store = sqliteStore(sqliteFile());

/** A receiver's options with one queue of `events`, read with `typeAt` when given. */
function options(events: readonly EventDefinition[], typeAt: string | null = "type"): ReceiverOptions {
  return {
    store,
    queues: [{ name: "q", client, idAt: "id", ...(typeAt === null ? {} : { typeAt }), events }],
  };
}

const configurationError = (pattern: RegExp) =>
  expect.objectContaining({ code: "Configuration", message: expect.stringMatching(pattern) });

describe("a receiver's configuration", () => {
  it("refuses two events of a queue with one wireName", () => {
    const Twin = defineEvent("Twin", { wireName: "order_shipped", schema: z.object({}) });
    expect(() => new Receiver(options([OrderShipped, Twin]))).toThrow(
      configurationError(/receiving\.invalid.*same wireName order_shipped/),
    );
  });

  it("refuses an event without a wireName on a queue that reads a type", () => {
    const Bare = defineEvent("Bare", { schema: z.object({}) });
    expect(() => new Receiver(options([OrderShipped, Bare]))).toThrow(
      configurationError(/receiving\.invalid.*Bare needs a wireName/),
    );
  });

  it("refuses a queue without typeAt that lists other than one event", () => {
    expect(() => new Receiver(options([OrderShipped, InvoiceSent], null))).toThrow(
      configurationError(/receiving\.invalid.*no typeAt, so it lists one event, not 2/),
    );
    expect(() => new Receiver(options([], null))).toThrow(configurationError(/receiving\.invalid/));
  });

  it("accepts an event without a wireName on a queue of one event", () => {
    const Bare = defineEvent("Bare", { schema: z.object({}) });
    expect(() => new Receiver(options([Bare], null))).not.toThrow();
  });

  it("refuses a receiver without a store: event.store_required", () => {
    const { store: _store, ...rest } = options([OrderShipped]);
    expect(() => new Receiver(rest as ReceiverOptions)).toThrow(configurationError(/^event\.store_required/));
  });

  it.each([
    ["no queues", { queues: [] }, /at least one queue/],
    [
      "two queues of one name",
      {
        queues: [
          { name: "q", client, idAt: "id", events: [OrderShipped] },
          { name: "q", client, idAt: "id", events: [OrderShipped] },
        ],
      },
      /two queues are named q/,
    ],
    [
      "an empty idAt",
      { queues: [{ name: "q", client, idAt: "", events: [OrderShipped] }] },
      /idAt must be a dotted path/,
    ],
    [
      "an idAt with an empty segment",
      { queues: [{ name: "q", client, idAt: "meta..id", events: [OrderShipped] }] },
      /empty segment/,
    ],
    [
      "a client that is not a QueueClient",
      { queues: [{ name: "q", client: {}, idAt: "id", events: [OrderShipped] }] },
      /client must be a QueueClient/,
    ],
    ["an interval over 10 s", { intervalMs: 10_001 }, /intervalMs must be a whole number from 1 to 10000/],
    ["a concurrency of 0", { concurrency: 0 }, /concurrency/],
    ["a retry policy of 0 attempts", { retryPolicy: { maxAttempts: 0 } }, /maxAttempts/],
    [
      "a subscriber of an event no queue lists",
      { subscribers: [{ name: "s", events: [InvoiceSent], handle: (): void => undefined }] },
      /listens to InvoiceSent, which no queue lists/,
    ],
    [
      "two subscribers of one name",
      {
        subscribers: [
          { name: "s", events: [OrderShipped], handle: (): void => undefined },
          { name: "s", events: [OrderShipped], handle: (): void => undefined },
        ],
      },
      /two subscribers are named s/,
    ],
    [
      "a subscriber without handle",
      { subscribers: [{ name: "s", events: [OrderShipped] }] },
      /needs a handle function/,
    ],
  ])("refuses %s", (_what, change, pattern) => {
    expect(
      () => new Receiver({ ...options([OrderShipped], null), ...(change as Partial<ReceiverOptions>) }),
    ).toThrow(configurationError(pattern));
  });

  it("refuses two different events of one name", () => {
    const Again = defineEvent("OrderShipped", { wireName: "shipped_again", schema: z.object({}) });
    expect(
      () =>
        new Receiver({
          store,
          queues: [
            { name: "a", client, idAt: "id", events: [OrderShipped] },
            { name: "b", client, idAt: "id", events: [Again] },
          ],
        }),
    ).toThrow(configurationError(/two different events are named OrderShipped/));
  });

  it("defineEvent refuses a schema that is not a Standard Schema, and a bad name", () => {
    expect(() => defineEvent("E", { schema: { parse: () => 1 } as never })).toThrow(
      configurationError(/Standard Schema v1/),
    );
    expect(() => defineEvent("has space", { schema: z.object({}) })).toThrow(
      configurationError(/event name/),
    );
    expect(() => defineEvent("E", { wireName: "", schema: z.object({}) })).toThrow(
      configurationError(/wireName/),
    );
  });

  it("stores refuse bad options", () => {
    expect(() => sqliteStore("")).toThrow(configurationError(/path/));
    expect(() => sqliteStore("x.db", { busyTimeoutMs: 20_000 })).toThrow(configurationError(/busyTimeoutMs/));
    expect(() => sqliteStore("x.db", { tablePrefix: "bad-prefix" })).toThrow(
      configurationError(/tablePrefix/),
    );
    expect(() => postgresStore("not a url")).toThrow(configurationError(/URL/));
    expect(() => postgresStore({} as never)).toThrow(configurationError(/pg\.Pool/));
  });

  it("a directory that does not exist is a clear error on the first tick", async () => {
    const receiver = new Receiver({
      ...options([OrderShipped]),
      store: sqliteStore("/nonexistent/dir/app.db"),
    });
    await expect(receiver.tick()).rejects.toMatchObject({
      code: "Configuration",
      message: expect.stringContaining("/nonexistent/dir/app.db"),
    });
  });
});

describe.each(STORE_KINDS)("the store's tables ($name store)", (kind) => {
  it("take their names from tablePrefix", async () => {
    const setup = await receiving(kind, { storeOptions: { tablePrefix: "app_" } });
    await setup.send(orderShipped("o-1"), "not json");
    await setup.receiver.tick();
    expect(await setup.store.query("SELECT queue, id FROM app_received_events")).toEqual([
      { queue: "warehouse_queue", id: "o-1" },
    ]);
    expect(await setup.store.query("SELECT reason FROM app_parked_messages")).toEqual([
      { reason: "unreadable" },
    ]);
  });

  it("are created once by two stores opening at the same moment", async () => {
    const first = await kind.make();
    const second = kind.name === "sqlite" ? sqliteStore(first.location) : postgresStore(first.location);
    await Promise.all([first.store.open(), second.open()]);
    await second.close();
    expect(await first.query("SELECT version FROM qr_receiving_schema")).toEqual([{ version: 1 }]);
  });

  it("close() ends the store but never the queue clients", async () => {
    const setup = await receiving(kind);
    await setup.receiver.tick();
    await setup.receiver.close();
    await setup.client.sendMessage("warehouse", "still open");
    expect(await setup.onQueue()).toBe(1);
  });
});

describe("postgresStore's pool", () => {
  const connections = async (name: string) => {
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    const { rows } = await admin.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1",
      [name],
    );
    await admin.end();
    return rows[0].n as number;
  };

  it("a pool made from a URL is ended by close()", async () => {
    const { url } = await postgresSchema();
    const withName = new URL(url);
    withName.searchParams.set("application_name", "qr_close_test_own");
    const setup = await receiving(postgresKind, { wrapStore: () => postgresStore(withName.toString()) });
    await setup.send(orderShipped("o-1"));
    await setup.receiver.tick();
    expect(await connections("qr_close_test_own")).toBeGreaterThan(0);
    await setup.receiver.close();
    await expect.poll(() => connections("qr_close_test_own")).toBe(0);
  });

  it("a pool passed in is used as given and never ended", async () => {
    const setup = await receiving(postgresKind);
    await setup.receiver.tick();
    await setup.receiver.close();
    expect((await setup.store.pool!.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
  });
});

describe("types", () => {
  it("each subscriber's handle gets the output type of its own events", () => {
    type Shipped = { orderId: string; lines: { sku: string; quantity: number }[] };
    type Invoice = { invoiceId: string; amount: number };
    const receiver = new Receiver({
      store,
      queues: [{ name: "q", client, idAt: "id", typeAt: "type", events: [OrderShipped, InvoiceSent] }],
      subscribers: [
        {
          name: "shipping",
          events: [OrderShipped],
          handle: (event) => void expectTypeOf(event).toEqualTypeOf<Shipped>(),
        },
        {
          name: "both",
          events: [OrderShipped, InvoiceSent],
          handle: (event) => void expectTypeOf(event).toEqualTypeOf<Shipped | Invoice>(),
        },
      ],
    });
    expect(receiver).toBeInstanceOf(Receiver);
  });
});
