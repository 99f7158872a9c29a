import Database from "better-sqlite3";
import type pg from "pg";
import { describe, expect, it } from "vitest";
import type { QueueClient } from "../../src/index.js";
import {
  type PgPool,
  type PgPoolClient,
  type PgQuery,
  type PgResult,
  postgresStore,
  type ReceivingStore,
} from "../../src/receiving/index.js";
import { OrderShipped, orderShipped, type Receiving, receiving } from "./harness.js";
import { POSTGRES_URL, postgresKind, STORE_KINDS, sqliteKind } from "./stores.js";

/** A store that runs `after` once each commit has resolved, before the receiver goes on. */
function afterCommit(after: () => Promise<void>): (store: ReceivingStore) => ReceivingStore {
  return (store) =>
    new Proxy(store, {
      get(target, key) {
        if (key === "commit")
          return async (...args: Parameters<ReceivingStore["commit"]>) => {
            const result = await target.commit(...args);
            await after();
            return result;
          };
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
}

/** A client that logs each completion before passing it on. */
function loggingCompletions(client: QueueClient, log: string[]): QueueClient {
  return new Proxy(client, {
    get(target, key) {
      if (key === "completeMessage")
        return (...args: Parameters<QueueClient["completeMessage"]>) => {
          log.push("complete");
          return target.completeMessage(...args);
        };
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** A pool whose first connection to insert into received_events is terminated by the server just before. */
function terminatedBeforeInsert(pool: pg.Pool): PgPool {
  let killed = false;
  const run = <Row>(on: pg.Pool | pg.PoolClient, query: string | PgQuery, values?: unknown[]) =>
    (typeof query === "string" ? on.query(query, values) : on.query(query)) as unknown as Promise<
      PgResult<Row>
    >;
  return {
    query: (query, values) => run(pool, query, values),
    end: () => pool.end(),
    async connect(): Promise<PgPoolClient> {
      const client = await pool.connect();
      return {
        async query(query, values) {
          const text = typeof query === "string" ? query : query.text;
          if (!killed && text.includes("INSERT INTO qr_received_events")) {
            killed = true;
            await client.query("SELECT pg_terminate_backend(pg_backend_pid())").catch(() => undefined);
          }
          return run(client, query, values);
        },
        release: (error) => client.release(error),
        on: (event, listener) => client.on(event, listener),
        off: (event, listener) => client.off(event, listener),
      };
    },
  };
}

/** The message is still on its queue and nothing of it is in the store. */
async function leftAlone(setup: Receiving): Promise<void> {
  expect(await setup.onQueue()).toBe(1);
  expect(await setup.recorded()).toEqual([]);
  expect(await setup.receiver.deliveries.list()).toEqual([]);
  expect(setup.handled).toEqual([]);
}

describe.each(STORE_KINDS)("acknowledging ($name store)", (kind) => {
  it("completes a message only after the commit that records its id, writes the outbox row and a delivery per subscriber", async () => {
    const log: string[] = [];
    let atCommit: Record<string, unknown> = {};
    let setup: Receiving | undefined;
    setup = await receiving(kind, {
      queues: (client) => [
        {
          name: "warehouse_queue",
          client: loggingCompletions(client, log),
          queue: "warehouse",
          idAt: "id",
          typeAt: "type",
          events: [OrderShipped],
        },
      ],
      subscribers: () => [
        { name: "billing", events: [OrderShipped], handle: () => void log.push("billing") },
        { name: "shipping", events: [OrderShipped], handle: () => void log.push("shipping") },
      ],
      wrapStore: afterCommit(async () => {
        log.push("commit");
        atCommit = {
          onQueue: await setup!.onQueue(),
          recorded: await setup!.store.query("SELECT queue, id FROM qr_received_events"),
          outbox: await setup!.store.query("SELECT queue, event, event_id FROM qr_outbox"),
          deliveries: await setup!.store.query(
            "SELECT subscriber, status FROM qr_deliveries ORDER BY subscriber",
          ),
        };
      }),
    });
    await setup.send(orderShipped("o-1"));
    await setup.receiver.tick();
    expect(log.slice(0, 2)).toEqual(["commit", "complete"]);
    expect(log.slice(2).sort()).toEqual(["billing", "shipping"]);
    expect(atCommit).toEqual({
      onQueue: 1,
      recorded: [{ queue: "warehouse_queue", id: "o-1" }],
      outbox: [{ queue: "warehouse_queue", event: "OrderShipped", event_id: "o-1" }],
      deliveries: [
        { subscriber: "billing", status: "pending" },
        { subscriber: "shipping", status: "pending" },
      ],
    });
    expect(await setup.onQueue()).toBe(0);
    // Both deliveries ran, so the outbox holds nothing more.
    expect(await setup.store.query("SELECT id FROM qr_outbox")).toEqual([]);
    expect(await setup.store.query("SELECT id FROM qr_deliveries")).toEqual([]);
  });

  it("a repeat, its id recorded already, is completed and keeps nothing", async () => {
    const setup = await receiving(kind);
    await setup.send(orderShipped("o-1"));
    await setup.receiver.tick();
    await setup.send(orderShipped("o-1", { orderId: "changed" }), orderShipped("o-1"));
    await setup.receiver.tick();
    expect(setup.handled).toHaveLength(1);
    expect(setup.handled[0]!.event).toMatchObject({ orderId: "order-o-1" });
    expect(await setup.onQueue()).toBe(0);
    expect(await setup.recorded()).toEqual(["o-1"]);
    expect(setup.receiver.metrics).toMatchObject({ kept: 1, repeats: 2, parked: 0, left: 0 });
  });

  it("two copies in one batch keep one event", async () => {
    const setup = await receiving(kind);
    await setup.send(orderShipped(7), orderShipped(7), orderShipped(8));
    await setup.receiver.tick();
    expect(setup.handled.map((h) => h.context.eventId).sort()).toEqual(["7", "8"]);
    expect(await setup.onQueue()).toBe(0);
  });

  it("ids are recorded per queue: the same id on two queues is two events", async () => {
    const setup = await receiving(kind, {
      queues: (client) => [
        { name: "east", client, queue: "warehouse", idAt: "id", typeAt: "type", events: [OrderShipped] },
        { name: "west", client, queue: "warehouse-west", idAt: "id", typeAt: "type", events: [OrderShipped] },
      ],
    });
    await setup.send(orderShipped(1));
    await setup.client.sendMessage("warehouse-west", orderShipped(1));
    await setup.receiver.tick();
    expect(setup.handled.map((h) => h.context.queue).sort()).toEqual(["east", "west"]);
  });
});

describe("a store that cannot take the event now leaves the message on its queue", () => {
  it("sqlite: the file locked by another connection, given up within busyTimeoutMs", async () => {
    const setup = await receiving(sqliteKind, { storeOptions: { busyTimeoutMs: 200 } });
    await setup.store.store.open();
    const other = new Database(setup.store.location);
    other.exec("BEGIN IMMEDIATE");
    await setup.send(orderShipped("o-1"));
    const started = performance.now();
    await expect(setup.receiver.tick()).rejects.toMatchObject({
      code: "ConnectionFailed",
      isTransient: true,
    });
    expect(performance.now() - started).toBeLessThan(5_000);
    other.exec("ROLLBACK");
    await leftAlone(setup);
    // The queue delivers it again once its lock ends; then it is kept.
    await setup.clock.advance(30_001);
    await setup.receiver.tick();
    expect(await setup.recorded()).toEqual(["o-1"]);
    expect(await setup.onQueue()).toBe(0);
    other.close();
  });

  it("sqlite: with the default wait, a lock held longer is given up within 15 s", async () => {
    const setup = await receiving(sqliteKind);
    await setup.store.store.open();
    const other = new Database(setup.store.location);
    other.exec("BEGIN IMMEDIATE");
    await setup.send(orderShipped("o-1"));
    const started = performance.now();
    await expect(setup.receiver.tick()).rejects.toMatchObject({ code: "ConnectionFailed" });
    expect(performance.now() - started).toBeLessThan(15_000);
    other.exec("ROLLBACK");
    other.close();
    await leftAlone(setup);
  });

  it("sqlite: a lock released while the receiver waits is waited for, not reported", async () => {
    const setup = await receiving(sqliteKind);
    await setup.store.store.open();
    const other = new Database(setup.store.location);
    other.exec("BEGIN IMMEDIATE");
    setTimeout(() => other.exec("ROLLBACK"), 300);
    await setup.send(orderShipped("o-1"));
    await setup.receiver.tick();
    expect(await setup.recorded()).toEqual(["o-1"]);
    other.close();
  });

  it("postgres: a lock held by another transaction, given up at lockTimeoutMs", async () => {
    const setup = await receiving(postgresKind, { storeOptions: { lockTimeoutMs: 200 } });
    await setup.store.store.open();
    const other = await setup.store.pool!.connect();
    await other.query("BEGIN");
    await other.query(
      "INSERT INTO qr_received_events (queue, id, recorded_at) VALUES ('warehouse_queue', 'o-1', 0)",
    );
    await setup.send(orderShipped("o-1"));
    await expect(setup.receiver.tick()).rejects.toMatchObject({
      code: "ConnectionFailed",
      providerCode: "55P03",
    });
    await other.query("ROLLBACK");
    other.release();
    await leftAlone(setup);
    await setup.clock.advance(30_001);
    await setup.receiver.tick();
    expect(await setup.recorded()).toEqual(["o-1"]);
  });

  it("postgres: a connection lost in the middle of the commit", async () => {
    const base = await postgresKind.make();
    const setup = await receiving(postgresKind, {
      testStore: base,
      wrapStore: () => postgresStore(terminatedBeforeInsert(base.pool!)),
    });
    await setup.send(orderShipped("o-1"));
    await expect(setup.receiver.tick()).rejects.toMatchObject({ code: "ConnectionFailed" });
    await leftAlone(setup);
    await setup.clock.advance(30_001);
    await setup.receiver.tick();
    expect(await setup.recorded()).toEqual(["o-1"]);
    expect(setup.handled).toHaveLength(1);
  });

  it("postgres: a server that cannot be reached", async () => {
    const unreachable = new URL(POSTGRES_URL);
    unreachable.port = "1";
    const setup = await receiving(postgresKind, { wrapStore: () => postgresStore(unreachable.toString()) });
    await setup.send(orderShipped("o-1"));
    await expect(setup.receiver.tick()).rejects.toMatchObject({
      code: "ConnectionFailed",
      isTransient: true,
    });
    expect(await setup.onQueue()).toBe(1);
    await setup.receiver.close();
  });
});

describe("a store that could not be opened", () => {
  it("postgres: a server down when the receiver starts is tried again by the next tick", async () => {
    const base = await postgresKind.make();
    let down = true;
    const pool = base.pool!;
    const flaky: PgPool = {
      query: <Row>(text: string, values?: unknown[]) =>
        pool.query(text, values) as unknown as Promise<PgResult<Row>>,
      end: () => pool.end(),
      connect: () =>
        down
          ? Promise.reject(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }))
          : pool.connect(),
    } as PgPool;
    const setup = await receiving(postgresKind, { testStore: base, wrapStore: () => postgresStore(flaky) });
    await setup.send(orderShipped("o-1"));
    await expect(setup.receiver.tick()).rejects.toMatchObject({ code: "ConnectionFailed" });
    expect(await setup.receiver.receiveBatch("warehouse_queue", [{ body: orderShipped("o-2") }])).toEqual([
      "left",
    ]);
    down = false;
    await setup.receiver.tick();
    expect(await setup.recorded()).toEqual(["o-1"]);
  });

  it("sqlite: a file locked while its tables are made is tried again by the next tick", async () => {
    const setup = await receiving(sqliteKind, { storeOptions: { busyTimeoutMs: 100 } });
    const other = new Database(setup.store.location);
    other.exec("PRAGMA journal_mode = WAL; BEGIN IMMEDIATE");
    await setup.send(orderShipped("o-1"));
    await expect(setup.receiver.tick()).rejects.toMatchObject({ code: "ConnectionFailed" });
    other.exec("ROLLBACK");
    other.close();
    await setup.receiver.tick();
    expect(await setup.recorded()).toEqual(["o-1"]);
  });
});

describe.each(STORE_KINDS)("a statement the store refuses every time ($name store)", (kind) => {
  const trigger =
    kind.name === "sqlite"
      ? [
          `CREATE TRIGGER refuse_poison BEFORE INSERT ON qr_received_events WHEN NEW.id = 'poison'
           BEGIN SELECT RAISE(ABORT, 'no poison here'); END`,
        ]
      : [
          `CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
           BEGIN IF NEW.id = 'poison' THEN RAISE EXCEPTION 'no poison here'; END IF; RETURN NEW; END $$`,
          `CREATE TRIGGER refuse_poison BEFORE INSERT ON qr_received_events
           FOR EACH ROW EXECUTE FUNCTION refuse_poison()`,
        ];

  it("parks that message unreadable and keeps the rest of its batch", async () => {
    const setup = await receiving(kind);
    await setup.store.store.open();
    for (const statement of trigger) await setup.store.query(statement);
    await setup.send(orderShipped("a"), orderShipped("poison"), orderShipped("b"));
    await setup.receiver.tick();
    expect(await setup.recorded()).toEqual(["a", "b"]);
    expect(await setup.onQueue()).toBe(0);
    const items = await setup.receiver.deliveries.list();
    expect(items).toEqual([
      expect.objectContaining({
        kind: "parked",
        reason: "unreadable",
        label: "queue warehouse_queue · OrderShipped",
        problems: [{ field: "", rule: "store" }],
      }),
    ]);
    expect(Buffer.from(items[0]!.body!).toString()).toBe(orderShipped("poison"));
  });

  if (kind.name === "postgres")
    it("a text PostgreSQL cannot hold (a NUL character) is refused as a statement", async () => {
      const setup = await receiving(kind);
      await setup.send(orderShipped("nul", { orderId: "a\u0000b" }), orderShipped("fine"));
      await setup.receiver.tick();
      expect(await setup.recorded()).toEqual(["fine"]);
      expect(await setup.receiver.deliveries.list()).toMatchObject([
        { reason: "unreadable", problems: [{ field: "", rule: "store" }] },
      ]);
    });
});
