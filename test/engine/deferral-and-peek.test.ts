import { describe, expect, it } from "vitest";
import type { EngineMessage } from "../../src/engine/delivery.js";
import { QueueEngine } from "../../src/engine/queue-engine.js";
import type { LockReference, MessageRecord } from "../../src/engine/records.js";
import { VirtualClock } from "../../src/index.js";
import { outgoingMessage } from "../support/outgoing-message.js";
import { storeKinds } from "./stores.js";

const STORES = storeKinds("deferral");

const text = (record: MessageRecord) => Buffer.from(record.body).toString();
const lockOf = (queue: string, record: MessageRecord): LockReference => ({
  queue,
  seq: record.seq,
  lockToken: record.lockToken!,
});

describe.each(STORES)("deferral, scheduled messages and peek ($name store)", (kind) => {
  const setup = () => {
    const clock = new VirtualClock();
    const open = kind.make();
    const engine = new QueueEngine(open(), { clock, lockDurationMs: 10_000 });
    engine.createQueue("q");
    return { clock, open, engine };
  };
  const body = (value: string, delayMs?: number): EngineMessage => outgoingMessage(value, { delayMs });
  const receive = (engine: QueueEngine, max = 10) => engine.receive("q", max, (record) => ({ ...record }));

  it("a deferred message is never received, and is locked again by its sequence number", async () => {
    const { engine } = setup();
    engine.send("q", [body("a"), body("b")]);
    const [a] = await receive(engine, 1);
    engine.defer(lockOf("q", a!));
    expect((await receive(engine)).map(text)).toEqual(["b"]);
    expect(await receive(engine)).toEqual([]);
    const [again] = engine.receiveDeferred("q", [a!.seq], (record) => ({ ...record }));
    expect(text(again!)).toBe("a");
    expect(again!.deliveryCount).toBe(2);
    engine.complete(lockOf("q", again!));
    expect(engine.peek("q", 0, 10).map(text)).toEqual(["b"]);
  });

  it("a deferred message taken by sequence number goes back to deferral when abandoned or its lock ends", async () => {
    const { engine, clock } = setup();
    engine.send("q", [body("a")]);
    const [a] = await receive(engine);
    engine.defer(lockOf("q", a!));
    const [taken] = engine.receiveDeferred("q", [a!.seq], (record) => ({ ...record }));
    engine.abandon(lockOf("q", taken!));
    expect(await receive(engine)).toEqual([]);
    const [second] = engine.receiveDeferred("q", [a!.seq], (record) => ({ ...record }));
    await clock.advance(10_001);
    expect(await receive(engine)).toEqual([]);
    expect(() => engine.complete(lockOf("q", second!))).toThrow(
      expect.objectContaining({ code: "InvalidReceipt" }),
    );
    expect(engine.receiveDeferred("q", [a!.seq], (record) => text(record))).toEqual(["a"]);
  });

  it("a sequence number that is not a deferred message fails the call and locks nothing", async () => {
    const { engine } = setup();
    engine.send("q", [body("a"), body("b")]);
    const [a, b] = await receive(engine, 2);
    engine.defer(lockOf("q", a!));
    expect(() => engine.receiveDeferred("q", [a!.seq, b!.seq], (r) => r)).toThrow(
      expect.objectContaining({ code: "MessageNotFound", message: expect.stringContaining(String(b!.seq)) }),
    );
    expect(() => engine.receiveDeferred("q", [999_999], (r) => r)).toThrow(
      expect.objectContaining({ code: "MessageNotFound" }),
    );
    expect(engine.receiveDeferred("q", [a!.seq], (r) => text(r))).toEqual(["a"]);
  });

  it("a deferred message is dead-lettered once its deliveries are used up", async () => {
    const { engine } = setup();
    engine.createQueue("few", { maxDeliveryCount: 2 });
    engine.send("few", [body("x")]);
    const [x] = await engine.receive("few", 1, (r) => ({ ...r }));
    engine.defer(lockOf("few", x!));
    const [taken] = engine.receiveDeferred("few", [x!.seq], (r) => ({ ...r }));
    engine.abandon(lockOf("few", taken!));
    expect(engine.stats("few").deadLettered).toBe(1);
    expect(() => engine.receiveDeferred("few", [x!.seq], (r) => r)).toThrow(
      expect.objectContaining({ code: "MessageNotFound" }),
    );
  });

  it("cancels a scheduled message not yet delivered, and nothing else", async () => {
    const { engine, clock } = setup();
    const [scheduled, later, now] = engine.send("q", [
      body("scheduled", 60_000),
      body("later", 60_000),
      body("now"),
    ]);
    const seqOf = (outcome: typeof scheduled) => (outcome?.ok ? outcome.seq : -1);
    expect(engine.cancelScheduled("q", [seqOf(scheduled!), seqOf(now!), 123_456])).toBe(1);
    await clock.advance(60_000);
    expect((await receive(engine)).map(text).sort()).toEqual(["later", "now"]);
    expect(seqOf(later!)).toBeGreaterThan(0);
  });

  it("peeks from a sequence number, in order, whatever the state, changing nothing", async () => {
    const { engine } = setup();
    engine.send(
      "q",
      ["1", "2", "3", "4", "5"].map((value) => body(value)),
    );
    const [first] = await receive(engine, 1);
    const peeked = engine.peek("q", 0, 10);
    expect(peeked.map(text)).toEqual(["1", "2", "3", "4", "5"]);
    expect(peeked[0]!.state).toBe("locked");
    expect(engine.peek("q", peeked[2]!.seq, 2).map(text)).toEqual(["3", "4"]);
    expect(engine.peek("q", peeked[4]!.seq + 1, 10)).toEqual([]);
    expect(engine.peek("q", 0, 0)).toEqual([]);
    expect(engine.stats("q")).toMatchObject({ active: 4, inFlight: 1 });
    expect((await receive(engine)).map((r) => r.deliveryCount)).toEqual([1, 1, 1, 1]);
    expect(first!.seq).toBe(peeked[0]!.seq);
    expect(() => engine.peek("missing", 0, 1)).toThrow(expect.objectContaining({ code: "QueueNotFound" }));
  });

  if (kind.durable)
    it("a deferred message stays deferred across a restart", async () => {
      const { engine, open, clock } = setup();
      engine.send("q", [body("kept aside")]);
      const [a] = await receive(engine);
      engine.defer(lockOf("q", a!));
      await engine.close();
      const reopened = new QueueEngine(open(), { clock });
      expect(await reopened.receive("q", 10, (r) => r)).toEqual([]);
      expect(reopened.receiveDeferred("q", [a!.seq], (r) => text(r))).toEqual(["kept aside"]);
      await reopened.close();
    });
});
