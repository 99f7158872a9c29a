import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { QueueClient } from "../../src/index.js";
import { type DeliveryItem, defineEvent, MAX_EVENT_BYTES } from "../../src/receiving/index.js";
import { OrderShipped, orderShipped, receiving } from "./harness.js";
import { STORE_KINDS } from "./stores.js";

/** A secret that a refused field carries: it must never leave the body. */
const SECRET = "4111-1111-1111-1111";

const Note = defineEvent("Note", { wireName: "note", schema: z.object({ text: z.string() }) });

/** A `note` body whose kept value is exactly `bytes` long as JSON. */
function noteOfSize(id: string, bytes: number): string {
  const overhead = JSON.stringify({ text: "" }).length;
  return JSON.stringify({ id, type: "note", text: "x".repeat(bytes - overhead) });
}

describe.each(STORE_KINDS)("parking ($name store)", (kind) => {
  const withNotes = (client: QueueClient) => [
    {
      name: "warehouse_queue",
      client,
      queue: "warehouse",
      idAt: "id",
      typeAt: "type",
      events: [OrderShipped, Note],
    },
  ];

  it("a type the queue does not list is parked unlisted_type, labelled with the type as read", async () => {
    const setup = await receiving(kind);
    await setup.send(JSON.stringify({ id: 1, type: "order_cancelled", reason: SECRET }));
    await setup.receiver.tick();
    expect(await setup.onQueue()).toBe(0);
    const items = await setup.receiver.deliveries.list();
    expect(items).toHaveLength(1);
    expect(items[0]).toEqual({
      id: expect.stringMatching(/^p-\d+$/),
      kind: "parked",
      status: "failed",
      label: "queue warehouse_queue · order_cancelled",
      reason: "unlisted_type",
      problems: [],
      body: new Uint8Array(Buffer.from(JSON.stringify({ id: 1, type: "order_cancelled", reason: SECRET }))),
    });
  });

  it("a value the schema refuses is parked unreadable with each problem's field and rule, never the value", async () => {
    const setup = await receiving(kind);
    const body = JSON.stringify({
      id: 9,
      type: "order_shipped",
      orderId: SECRET.length,
      lines: [{ sku: SECRET, quantity: -1 }],
    });
    await setup.send(body);
    await setup.receiver.tick();
    const [item] = await setup.receiver.deliveries.list();
    expect(item).toMatchObject({ reason: "unreadable", label: "queue warehouse_queue · OrderShipped" });
    expect(item!.problems).toEqual([
      { field: "orderId", rule: "invalid_type" },
      { field: "lines.0.quantity", rule: "too_small" },
    ]);
    expect(Buffer.from(item!.body!).toString()).toBe(body);
    // No member but the body, and no column but the body's, holds a value from the body.
    const { body: _body, ...rest } = item as DeliveryItem;
    expect(JSON.stringify(rest)).not.toContain(SECRET);
    for (const table of ["qr_parked_messages", "qr_received_events", "qr_outbox", "qr_deliveries"]) {
      const rows = await setup.store.query(`SELECT * FROM ${table}`);
      for (const row of rows)
        for (const [column, value] of Object.entries(row)) {
          if (column === "body") continue;
          expect(String(value), `${table}.${column}`).not.toContain(SECRET);
          expect(String(value), `${table}.${column}`).not.toContain("order_cancelled");
        }
    }
  });

  it("an unlisted type is read from the body for its label, never copied into a column", async () => {
    const setup = await receiving(kind);
    await setup.send(JSON.stringify({ id: 1, type: "order_cancelled" }));
    await setup.receiver.tick();
    const rows = await setup.store.query("SELECT * FROM qr_parked_messages");
    for (const [column, value] of Object.entries(rows[0]!))
      if (column !== "body") expect(String(value), column).not.toContain("order_cancelled");
  });

  it("an event over 64 KiB as its JSON is parked too_large; one of exactly 64 KiB is kept", async () => {
    const setup = await receiving(kind, { queues: withNotes });
    await setup.send(noteOfSize("fits", MAX_EVENT_BYTES), noteOfSize("over", MAX_EVENT_BYTES + 1));
    await setup.receiver.tick();
    expect(await setup.recorded()).toEqual(["fits"]);
    expect(await setup.receiver.deliveries.list()).toMatchObject([
      { reason: "too_large", label: "queue warehouse_queue · Note", problems: [] },
    ]);
  });

  it("the size counted is the kept event's, not the body's: a large body whose event is small is kept", async () => {
    const setup = await receiving(kind, { queues: withNotes });
    await setup.send(
      JSON.stringify({ id: "big", type: "note", text: "small", padding: "p".repeat(200_000) }),
    );
    await setup.receiver.tick();
    expect(await setup.recorded()).toEqual(["big"]);
  });

  it("multi-byte characters count by their UTF-8 bytes", async () => {
    const setup = await receiving(kind, { queues: withNotes });
    const overhead = JSON.stringify({ text: "" }).length;
    // 'é' is two bytes: this event is one byte over the limit though its length in characters is under it.
    const text = `${"é".repeat((MAX_EVENT_BYTES - overhead + 1) / 2)}`;
    await setup.send(JSON.stringify({ id: "accents", type: "note", text }));
    await setup.receiver.tick();
    expect(await setup.receiver.deliveries.list()).toMatchObject([{ reason: "too_large" }]);
  });

  it("is parked once per queue and body: copies of a body are one record, on another queue another", async () => {
    const setup = await receiving(kind, {
      queues: (client) => [
        { name: "east", client, queue: "warehouse", idAt: "id", typeAt: "type", events: [OrderShipped] },
        { name: "west", client, queue: "warehouse-west", idAt: "id", typeAt: "type", events: [OrderShipped] },
      ],
    });
    await setup.send("garbage", "garbage", "other garbage");
    await setup.receiver.tick();
    await setup.send("garbage");
    await setup.client.sendMessage("warehouse-west", "garbage");
    await setup.receiver.tick();
    const items = await setup.receiver.deliveries.list();
    expect(items.map((item) => [item.label, Buffer.from(item.body!).toString()]).sort()).toEqual([
      ["queue east", "garbage"],
      ["queue east", "other garbage"],
      ["queue west", "garbage"],
    ]);
    expect(await setup.onQueue()).toBe(0);
    expect(await setup.onQueue("warehouse-west")).toBe(0);
  });

  it("keeps a body byte for byte, bytes that are not UTF-8 included", async () => {
    const setup = await receiving(kind);
    const bytes = new Uint8Array([0, 1, 2, 0xff, 0xfe, 0x80, 10, 13]);
    await setup.send(bytes);
    await setup.receiver.tick();
    const [item] = await setup.receiver.deliveries.list();
    expect(item!.body).toEqual(bytes);
    expect(item!.body).toBeInstanceOf(Uint8Array);
  });
});

describe.each(STORE_KINDS)("retrying and dismissing ($name store)", (kind) => {
  it("a retried parked message is pending, read again by the next tick with the code running then, and kept", async () => {
    const old = await receiving(kind);
    await old.send(JSON.stringify({ id: "c1", type: "order_cancelled" }));
    await old.receiver.tick();
    const [parked] = await old.receiver.deliveries.list();
    await old.receiver.deliveries.retry(parked!.id);
    expect(await old.receiver.deliveries.list()).toEqual([]);

    // A new build lists the type: the next tick keeps it.
    const OrderCancelled = defineEvent("OrderCancelled", {
      wireName: "order_cancelled",
      schema: z.object({}),
    });
    const seen: string[] = [];
    const { Receiver } = await import("../../src/receiving/index.js");
    const next = new Receiver({
      store: old.store.store,
      clock: old.clock,
      queues: [
        {
          name: "warehouse_queue",
          client: old.client,
          queue: "warehouse",
          idAt: "id",
          typeAt: "type",
          events: [OrderShipped, OrderCancelled],
        },
      ],
      subscribers: [
        { name: "audit", events: [OrderCancelled], handle: (_e, context) => void seen.push(context.eventId) },
      ],
    });
    await next.tick();
    expect(seen).toEqual(["c1"]);
    expect(await next.deliveries.list()).toEqual([]);
    expect(await old.store.query("SELECT id FROM qr_parked_messages")).toEqual([]);
    expect(await old.recorded()).toEqual(["c1"]);
  });

  it("a retried message that still cannot be read is parked again as the same single record", async () => {
    const setup = await receiving(kind);
    await setup.send(JSON.stringify({ id: "c1", type: "order_cancelled" }));
    await setup.receiver.tick();
    const [first] = await setup.receiver.deliveries.list();
    await setup.receiver.deliveries.retry(first!.id);
    await setup.receiver.tick();
    const again = await setup.receiver.deliveries.list();
    expect(again).toEqual([first]);
    expect(await setup.store.query("SELECT id FROM qr_parked_messages")).toHaveLength(1);
  });

  it("reads up to 20 retried messages in a tick, before the queues", async () => {
    const setup = await receiving(kind);
    await setup.send(
      ...Array.from({ length: 25 }, (_, i) => JSON.stringify({ id: i, type: "order_cancelled", n: i })),
    );
    for (let i = 0; i < 3; i++) await setup.receiver.tick();
    const items = await setup.receiver.deliveries.list();
    expect(items).toHaveLength(25);
    for (const item of items) await setup.receiver.deliveries.retry(item.id);
    await setup.send(orderShipped("fresh"));
    // The receiver itself is unchanged, so every retried one is parked again: 20 by the first tick.
    await setup.receiver.tick();
    expect(await setup.receiver.deliveries.list()).toHaveLength(20);
    expect(setup.handled.map((h) => h.context.eventId)).toEqual(["fresh"]);
    await setup.receiver.tick();
    expect(await setup.receiver.deliveries.list()).toHaveLength(25);
  });

  it("a dismissed item is no longer listed; ids that are not listed are refused", async () => {
    const setup = await receiving(kind);
    await setup.send("not json");
    await setup.receiver.tick();
    const [item] = await setup.receiver.deliveries.list();
    await setup.receiver.deliveries.dismiss(item!.id);
    expect(await setup.receiver.deliveries.list()).toEqual([]);
    await expect(setup.receiver.deliveries.dismiss(item!.id)).rejects.toMatchObject({
      code: "MessageNotFound",
    });
    await expect(setup.receiver.deliveries.retry(item!.id)).rejects.toMatchObject({
      code: "MessageNotFound",
    });
    for (const id of ["p-999", "d-1", "nonsense", "", "p-0"])
      await expect(setup.receiver.deliveries.retry(id)).rejects.toMatchObject({ code: "MessageNotFound" });
  });

  it("the same body arriving after its record was dismissed is listed again, still one record", async () => {
    const setup = await receiving(kind);
    await setup.send("not json");
    await setup.receiver.tick();
    const [item] = await setup.receiver.deliveries.list();
    await setup.receiver.deliveries.dismiss(item!.id);
    await setup.send("not json");
    await setup.receiver.tick();
    expect(await setup.receiver.deliveries.list()).toMatchObject([{ id: item!.id, reason: "unreadable" }]);
  });
});
