import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineEvent, type StandardSchemaV1 } from "../../src/receiving/index.js";
import { InvoiceSent, OrderShipped, orderShipped, receiving } from "./harness.js";
import { STORE_KINDS } from "./stores.js";

/** A hand-written Standard Schema: what an application without a validator library writes. */
const handWritten: StandardSchemaV1<unknown, { sku: string }> = {
  "~standard": {
    version: 1,
    vendor: "hand-written",
    validate(value) {
      const sku = (value as { sku?: unknown } | null)?.sku;
      if (typeof sku !== "string")
        return { issues: [{ message: `sku ${String(sku)} is not text`, path: ["sku"] }] };
      return { value: { sku } };
    },
  },
};

/** The same, answering through a Promise as the spec allows. */
const asyncSchema: StandardSchemaV1<unknown, { sku: string }> = {
  "~standard": {
    version: 1,
    vendor: "async",
    validate: async (value) => handWritten["~standard"].validate(value),
  },
};

describe.each(STORE_KINDS)("reading messages ($name store)", (kind) => {
  it("reads the id at its dotted path, as text or as a whole number", async () => {
    const { receiver, send, handled, recorded } = await receiving(kind, {
      queues: (client) => [
        {
          name: "warehouse_queue",
          client,
          queue: "warehouse",
          idAt: "meta.id",
          typeAt: "meta.kind",
          events: [OrderShipped],
        },
      ],
    });
    const body = (id: unknown) =>
      JSON.stringify({
        meta: { id, kind: "order_shipped" },
        orderId: "o",
        lines: [{ sku: "A", quantity: 1 }],
      });
    await send(body("evt-1"), body(42), body(-7));
    await receiver.tick();
    expect(await recorded()).toEqual(["-7", "42", "evt-1"]);
    expect(handled.map((h) => h.context.eventId).sort()).toEqual(["-7", "42", "evt-1"]);
  });

  it("a whole number and the same digits as text are one id", async () => {
    const { receiver, send, handled } = await receiving(kind);
    await send(orderShipped(42), orderShipped("42"));
    await receiver.tick();
    expect(handled).toHaveLength(1);
    expect(receiver.metrics.repeats).toBe(1);
  });

  it.each([
    ["4.5", 4.5],
    ["an object", { n: 1 }],
    ["an empty text", ""],
    ["missing", undefined],
    ["null", null],
    ["true", true],
    ["a number beyond 2^53, which would collide once parsed", 2 ** 60],
  ])("an id that is %s is not an id: unreadable at idAt", async (_what, id) => {
    const { receiver, send, recorded } = await receiving(kind);
    await send(JSON.stringify({ id, type: "order_shipped", orderId: "o", lines: [] }));
    await receiver.tick();
    expect(await recorded()).toEqual([]);
    const [item] = await receiver.deliveries.list();
    expect(item).toMatchObject({ reason: "unreadable", problems: [{ field: "id", rule: "id" }] });
    expect(item!.label).toBe("queue warehouse_queue · OrderShipped");
  });

  it("matches the type text against each event's wireName", async () => {
    const seen: string[] = [];
    const { receiver, send } = await receiving(kind, {
      subscribers: () => [
        {
          name: "all",
          events: [OrderShipped, InvoiceSent],
          handle: (_event, context) => void seen.push(context.eventName),
        },
      ],
    });
    await send(orderShipped(1), JSON.stringify({ id: 2, type: "invoice_sent", invoiceId: "i", amount: 3 }));
    await receiver.tick();
    expect(seen.sort()).toEqual(["InvoiceSent", "OrderShipped"]);
  });

  it("a type that is not a text, or missing, is unreadable at typeAt; a missing id as well", async () => {
    const { receiver, send } = await receiving(kind);
    await send(JSON.stringify({ type: 7 }), JSON.stringify({ id: "x" }));
    await receiver.tick();
    const items = await receiver.deliveries.list();
    expect(items.map((item) => item.problems)).toEqual(
      expect.arrayContaining([
        [
          { field: "type", rule: "type" },
          { field: "id", rule: "id" },
        ],
        [{ field: "type", rule: "type" }],
      ]),
    );
    expect(items.map((item) => item.label)).toEqual(["queue warehouse_queue", "queue warehouse_queue"]);
  });

  it("a queue of one event reads no type: the body's own type member is just left out", async () => {
    const { receiver, send, handled } = await receiving(kind, {
      queues: (client) => [
        { name: "shipments", client, queue: "warehouse", idAt: "id", events: [OrderShipped] },
      ],
    });
    await send(orderShipped("s1", { type: "anything at all" }));
    await receiver.tick();
    expect(handled.map((h) => h.event)).toEqual([
      { orderId: "order-s1", lines: [{ sku: "A-1", quantity: 2 }] },
    ]);
    expect(handled[0]!.context.queue).toBe("shipments");
  });

  it("keeps what the schema outputs: members it does not declare (the id and type among them) are left out", async () => {
    const { receiver, send, handled } = await receiving(kind);
    await send(orderShipped("e1", { customer: { email: "someone@example.com" }, note: "undeclared" }));
    await receiver.tick();
    expect(handled).toHaveLength(1);
    expect(handled[0]!.event).toEqual({ orderId: "order-e1", lines: [{ sku: "A-1", quantity: 2 }] });
  });

  it("keeps the schema's output, not the body: a transform's result is what subscribers get", async () => {
    const Priced = defineEvent("Priced", {
      schema: z.object({ cents: z.number().int() }).transform(({ cents }) => ({ euros: cents / 100 })),
    });
    const { receiver, send, handled } = await receiving(kind, {
      queues: (client) => [{ name: "prices", client, queue: "warehouse", idAt: "id", events: [Priced] }],
      subscribers: (handled) => [
        {
          name: "books",
          events: [Priced],
          handle: (event, context) => void handled.push({ event, context }),
        },
      ],
    });
    await send(JSON.stringify({ id: 1, cents: 1250 }));
    await receiver.tick();
    expect(handled.map((h) => h.event)).toEqual([{ euros: 12.5 }]);
  });

  it("a body that is not JSON, or not UTF-8, is unreadable as a whole", async () => {
    const { receiver, send } = await receiving(kind);
    await send("{ not json", new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
    await receiver.tick();
    const items = await receiver.deliveries.list();
    expect(items).toHaveLength(2);
    for (const item of items)
      expect(item).toMatchObject({ reason: "unreadable", problems: [{ field: "", rule: "json" }] });
  });
});

describe.each(STORE_KINDS)("any Standard Schema validator ($name store)", (kind) => {
  const validators: [string, StandardSchemaV1<unknown, unknown>, string][] = [
    ["zod", z.object({ sku: z.string() }), "invalid_type"],
    ["valibot", v.object({ sku: v.string() }), "string"],
    ["ArkType", type({ sku: "string" }), "domain"],
    ["a hand-written schema", handWritten, "invalid"],
    ["an asynchronous schema", asyncSchema, "invalid"],
  ];

  it.each(validators)(
    "%s: the kept value, and refusals as field and rule without the value",
    async (_name, schema, rule) => {
      const Item = defineEvent("Item", { schema });
      const { receiver, send, recorded } = await receiving(kind, {
        queues: (client) => [{ name: "items", client, queue: "warehouse", idAt: "id", events: [Item] }],
        subscribers: (handled) => [
          {
            name: "stock",
            events: [Item],
            handle: (event, context) => void handled.push({ event, context }),
          },
        ],
      });
      await send(
        JSON.stringify({ id: "good", sku: "A-1" }),
        JSON.stringify({ id: "bad", sku: 4111111111111111 }),
      );
      await receiver.tick();
      expect(await recorded()).toEqual(["good"]);
      const [item] = await receiver.deliveries.list();
      expect(item).toMatchObject({
        reason: "unreadable",
        label: "queue items · Item",
        problems: [{ field: "sku", rule }],
      });
      expect(JSON.stringify(item!.problems)).not.toContain("4111");
    },
  );

  it("a path of several segments is joined with dots, a valibot path segment by its key", async () => {
    const Order = defineEvent("Order", {
      schema: v.object({ lines: v.array(v.object({ sku: v.pipe(v.string(), v.minLength(3)) })) }),
    });
    const { receiver, send } = await receiving(kind, {
      queues: (client) => [{ name: "orders", client, queue: "warehouse", idAt: "id", events: [Order] }],
      subscribers: () => [],
    });
    await send(JSON.stringify({ id: 1, lines: [{ sku: "long enough" }, { sku: "ab" }] }));
    await receiver.tick();
    const [item] = await receiver.deliveries.list();
    expect(item!.problems).toEqual([{ field: "lines.1.sku", rule: "min_length" }]);
  });

  it("a schema that throws parks the message instead of losing it", async () => {
    const Broken = defineEvent("Broken", {
      schema: {
        "~standard": {
          version: 1,
          vendor: "broken",
          validate: () => {
            throw new Error("bug");
          },
        },
      },
    });
    const { receiver, send, onQueue } = await receiving(kind, {
      queues: (client) => [{ name: "broken", client, queue: "warehouse", idAt: "id", events: [Broken] }],
      subscribers: () => [],
    });
    await send(JSON.stringify({ id: 1 }));
    await receiver.tick();
    expect(await onQueue()).toBe(0);
    expect(await receiver.deliveries.list()).toMatchObject([
      {
        reason: "unreadable",
        label: "queue broken · Broken",
        problems: [{ field: "", rule: "schema_error" }],
      },
    ]);
  });
});
