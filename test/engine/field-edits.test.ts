// A settlement's edit of a message's attributes and properties (Service Bus's properties to modify), on every store.
import { describe, expect, it } from "vitest";
import { QueueEngine } from "../../src/engine/queue-engine.js";
import type { FieldEdit, LockReference, MessageRecord } from "../../src/engine/records.js";
import { VirtualClock } from "../../src/index.js";
import { outgoingMessage } from "../support/outgoing-message.js";
import { storeKinds } from "./stores.js";

const STORES = storeKinds("field-edits");

const copy = (record: MessageRecord): MessageRecord => ({ ...record });
const lockOf = (queue: string, record: MessageRecord): LockReference => ({
  queue,
  seq: record.seq,
  lockToken: record.lockToken!,
});
const text = (record: MessageRecord | undefined) => Buffer.from(record!.body).toString();

/** Merges `attributes` over a message's and sets one property, as a protocol server's edit would. */
const merging =
  (attributes: Record<string, string>, property: string): FieldEdit =>
  (stored) => ({
    attributes: { ...stored.attributes, ...attributes },
    properties: { ...stored.properties, edited: property },
  });

describe.each(STORES)("edits of a message's attributes and properties ($name store)", (kind) => {
  const setup = () => {
    const clock = new VirtualClock();
    const open = kind.make();
    const store = open();
    const engine = new QueueEngine(store, { clock, lockDurationMs: 10_000 });
    engine.createQueue("q", { maxDeliveryCount: 3 });
    const [sent] = engine.send("q", [
      outgoingMessage("body", {
        attributes: { kept: "k", changed: "before" },
        correlationId: "c",
        contentType: "text/plain",
      }),
    ]);
    const seq = sent?.ok ? sent.seq : -1;
    return { clock, open, store, engine, seq };
  };

  it("the store rewrites a message's attributes and properties and nothing else", async () => {
    const { store, engine, seq } = setup();
    const [locked] = await engine.receive("q", 1, copy);
    store.transaction(() =>
      store.updateAttributes("q", seq, { attributes: { only: "this" }, properties: { p: "1" } }),
    );
    const stored = store.transaction(() => store.getMessage("q", seq))!;
    expect(stored).toMatchObject({
      attributes: { only: "this" },
      properties: { p: "1" },
      correlationId: "c",
      contentType: "text/plain",
      state: "locked",
      lockToken: locked!.lockToken,
      deliveryCount: 1,
    });
    expect(text(stored)).toBe("body");
    store.transaction(() =>
      store.updateAttributes("q", seq, { attributes: undefined, properties: undefined }),
    );
    expect(store.transaction(() => store.getMessage("q", seq))).toMatchObject({
      attributes: undefined,
      properties: undefined,
    });
    expect(() =>
      store.transaction(() => store.updateAttributes("q", seq + 99, { attributes: {}, properties: {} })),
    ).toThrow(expect.objectContaining({ code: "MessageNotFound" }));
  });

  if (kind.durable)
    it("rewritten attributes and properties survive a reopen, with the lock written after them", async () => {
      const { store, engine, seq, open } = setup();
      const [locked] = await engine.receive("q", 1, copy);
      store.transaction(() =>
        store.updateAttributes("q", seq, { attributes: { a: "1" }, properties: { p: "x" } }),
      );
      engine.extendLock(lockOf("q", locked!), 20_000);
      store.transaction(() =>
        store.updateAttributes("q", seq, { attributes: { a: "2" }, properties: { p: "y" } }),
      );
      await engine.close();
      const reopened = open();
      expect(reopened.transaction(() => reopened.getMessage("q", seq))).toMatchObject({
        attributes: { a: "2" },
        properties: { p: "y" },
        state: "locked",
        lockToken: locked!.lockToken,
      });
      await reopened.close();
    });

  it("abandon with an edit: the next delivery carries it", async () => {
    const { engine } = setup();
    const [first] = await engine.receive("q", 1, copy);
    engine.abandon(lockOf("q", first!), 0, merging({ changed: "after" }, "abandoned"));
    const [second] = await engine.receive("q", 1, copy);
    expect(second).toMatchObject({
      attributes: { kept: "k", changed: "after" },
      properties: { edited: "abandoned" },
      deliveryCount: 2,
    });
  });

  it("defer with an edit: the message taken by its sequence number carries it", async () => {
    const { engine, seq } = setup();
    const [first] = await engine.receive("q", 1, copy);
    engine.defer(lockOf("q", first!), merging({ changed: "deferred" }, "deferred"));
    expect(await engine.receive("q", 1, copy)).toEqual([]);
    const [taken] = engine.receiveDeferred("q", [seq], copy);
    expect(taken).toMatchObject({
      attributes: { kept: "k", changed: "deferred" },
      properties: { edited: "deferred" },
    });
  });

  it("dead-letter with an edit: the dead letter carries it beside its reason", async () => {
    const { engine } = setup();
    const [first] = await engine.receive("q", 1, copy);
    engine.deadLetter(lockOf("q", first!), "Bad", "why", merging({ changed: "dead" }, "dead"));
    const [letter] = await engine.receive("q-dlq", 1, copy);
    expect(letter).toMatchObject({
      attributes: {
        kept: "k",
        changed: "dead",
        DeadLetterReason: "Bad",
        DeadLetterErrorDescription: "why",
        DeadLetterSourceQueue: "q",
      },
      properties: { edited: "dead" },
    });
  });

  it("an abandon that uses up the deliveries dead-letters the message as edited", async () => {
    const { engine } = setup();
    for (let delivery = 1; delivery <= 3; delivery++) {
      const [message] = await engine.receive("q", 1, copy);
      engine.abandon(lockOf("q", message!), 0, merging({ changed: String(delivery) }, "abandoned"));
    }
    const [letter] = await engine.receive("q-dlq", 1, copy);
    expect(letter).toMatchObject({
      attributes: { changed: "3", DeadLetterReason: "MaxDeliveryCountExceeded" },
      properties: { edited: "abandoned" },
    });
  });

  it("an edit with a lock gone changes nothing", async () => {
    const { engine, clock, seq } = setup();
    const [first] = await engine.receive("q", 1, copy);
    await clock.advance(10_001);
    expect(() => engine.abandon(lockOf("q", first!), 0, merging({ changed: "late" }, "late"))).toThrow(
      expect.objectContaining({ code: "InvalidReceipt" }),
    );
    expect(engine.peek("q", seq, 1)[0]).toMatchObject({
      attributes: { changed: "before" },
      properties: undefined,
    });
  });
});
