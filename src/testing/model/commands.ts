import fc from "fast-check";
import type { QueueOptions } from "../../core/admin.js";
import { modelOutcome, realOutcome, sameOutcome, sameResult, sameValue } from "./outcome.js";
import type { ModelQueueOptions, ModelSend } from "./queue-model.js";
import type { World } from "./world.js";

/** One step of a run: done on the model and on the provider, then compared. */
export type WorldCommand = fc.AsyncCommand<World, World, false>;

/** The queue names commands pick from: two queues, and a dead-letter queue used directly. */
export const QUEUE_NAMES = ["qa", "qb", "qa-dlq"] as const;

/** Creates a queue on both sides. */
export class CreateQueue implements WorldCommand {
  constructor(
    readonly name: string,
    readonly options: ModelQueueOptions,
  ) {}
  /** Always possible (an existing name is a case too). */
  check(): true {
    return true;
  }
  /** Creates the queue and compares the outcome. */
  async run(_: World, world: World): Promise<void> {
    const model = modelOutcome(() => world.model.createQueue(this.name, this.options));
    const real = await realOutcome(() =>
      world.client.admin.createQueue(this.name, this.options as QueueOptions),
    );
    sameOutcome(String(this), model, real);
  }
  /** How the step shows in a shrunk counterexample. */
  toString(): string {
    return `createQueue(${this.name}, ${JSON.stringify(this.options)})`;
  }
}

/** Sends one message with a fresh body. */
export class Send implements WorldCommand {
  constructor(
    readonly queue: string,
    readonly options: Omit<ModelSend, "body">,
  ) {}
  /** Always possible. */
  check(): true {
    return true;
  }
  /** Sends on both sides; a repeated deduplication id must answer the original's id. */
  async run(_: World, world: World): Promise<void> {
    const body = world.nextBody();
    const model = modelOutcome(() => world.model.send(this.queue, { body, ...this.options }));
    const real = await realOutcome(() => world.client.sendMessage(this.queue, { body, ...this.options }));
    const both = sameOutcome(String(this), model, real);
    if (both === undefined) return;
    if (both.model === body) world.realIds.set(body, both.real);
    else sameValue(`${this}: the id of the original ${both.model}`, world.realIds.get(both.model), both.real);
  }
  /** How the step shows in a shrunk counterexample. */
  toString(): string {
    return `send(${this.queue}, ${JSON.stringify(this.options)})`;
  }
}

/** Receives up to `max` messages (all of them from a queue that takes dead letters). */
export class Receive implements WorldCommand {
  constructor(
    readonly queue: string,
    readonly max: number,
  ) {}
  /** Always possible. */
  check(): true {
    return true;
  }
  /** Receives on both sides and compares what came, in order. */
  async run(_: World, world: World): Promise<void> {
    // Which dead letters come first is not specified, so such a queue is always drained whole.
    const max = world.model.receivesDeadLetters(this.queue) ? 1_000 : this.max;
    const model = modelOutcome(() => world.model.receive(this.queue, max));
    const real = await realOutcome(() => world.client.receiveMessages(this.queue, max, 0));
    const both = sameOutcome(String(this), model, real);
    if (both !== undefined) world.matchDeliveries(this.queue, both.model, both.real);
  }
  /** How the step shows in a shrunk counterexample. */
  toString(): string {
    return `receive(${this.queue}, ${this.max})`;
  }
}

/** What a settle does with a receipt. */
export type Settlement =
  | { readonly kind: "complete" }
  | { readonly kind: "abandon"; readonly delayMs: number | undefined }
  | { readonly kind: "deadLetter"; readonly reason: string; readonly description: string | undefined }
  | { readonly kind: "renew" };

/** Settles a receipt handed out earlier (maybe settled, expired or replaced since), from either client. */
export class Settle implements WorldCommand {
  constructor(
    readonly receiptIndex: number,
    readonly settlement: Settlement,
    readonly viaSecond: boolean,
  ) {}
  /** Needs a receipt. */
  check(world: World): boolean {
    return world.receipts.length > 0;
  }
  /** Settles on both sides and compares; a renewal must give the same new lock end. */
  async run(_: World, world: World): Promise<void> {
    const pair = world.receipt(this.receiptIndex)!;
    const { client, receipt } = world.settler(this.viaSecond, pair);
    const s = this.settlement;
    const label = `${this} on ${pair.body}`;
    if (s.kind === "renew") {
      const model = modelOutcome(() => world.model.renew(pair.model));
      const real = await realOutcome(() => client.renewMessageLock(receipt));
      const both = sameOutcome(label, model, real);
      if (both !== undefined) sameValue(`${label}: new lock end`, both.model, both.real.getTime());
      return;
    }
    const model = modelOutcome(() => {
      if (s.kind === "complete") world.model.complete(pair.model);
      else if (s.kind === "abandon") world.model.abandon(pair.model, s.delayMs);
      else world.model.deadLetter(pair.model, s.reason, s.description);
    });
    const real = await realOutcome(() => {
      if (s.kind === "complete") return client.completeMessage(receipt);
      if (s.kind === "abandon")
        return client.abandonMessage(receipt, s.delayMs === undefined ? undefined : { delayMs: s.delayMs });
      return client.deadLetterMessage(receipt, s.reason, s.description);
    });
    sameOutcome(label, model, real);
  }
  /** How the step shows in a shrunk counterexample. */
  toString(): string {
    return `${this.settlement.kind}(receipt #${this.receiptIndex} from newest${
      this.viaSecond ? ", by text from a second client" : ""
    }${JSON.stringify({ ...this.settlement, kind: undefined })})`;
  }
}

/** Removes every message of a queue. */
export class Purge implements WorldCommand {
  constructor(readonly queue: string) {}
  /** Always possible. */
  check(): true {
    return true;
  }
  /** Purges on both sides; both must say how many went. */
  async run(_: World, world: World): Promise<void> {
    await sameResult(
      String(this),
      () => world.model.purge(this.queue),
      () => world.client.admin.purgeQueue(this.queue),
    );
  }
  /** How the step shows in a shrunk counterexample. */
  toString(): string {
    return `purge(${this.queue})`;
  }
}

/** How far to move the clock: a fixed span, or to just before, at or after a lock's end or the next due moment. */
export type AdvanceBy =
  | { readonly kind: "fixed"; readonly ms: number }
  | { readonly kind: "lockEnd"; readonly receiptIndex: number; readonly offset: number }
  | { readonly kind: "nextDue"; readonly offset: number };

/** Moves both clocks. */
export class Advance implements WorldCommand {
  constructor(readonly by: AdvanceBy) {}
  /** Always possible (a lock that no longer holds means 0 ms). */
  check(): true {
    return true;
  }
  /** Advances the virtual clock and the model's by the same amount. */
  async run(_: World, world: World): Promise<void> {
    const ms = this.#span(world);
    await world.clock.advance(ms);
    world.model.advance(ms);
  }
  // Edges are where off-by-one errors live: exactly at a lock's end, and a millisecond either side.
  #span(world: World): number {
    const { by } = this;
    const now = world.model.now;
    if (by.kind === "fixed") return by.ms;
    const target =
      by.kind === "lockEnd"
        ? (() => {
            const pair = world.receipt(by.receiptIndex);
            return pair === undefined ? undefined : world.model.lockEnd(pair.model);
          })()
        : world.model.dueTimes()[0];
    return target === undefined ? 0 : Math.max(0, target + by.offset - now);
  }
  /** How the step shows in a shrunk counterexample. */
  toString(): string {
    const { by } = this;
    if (by.kind === "fixed") return `advance(${by.ms})`;
    const edge = by.offset === 0 ? "" : by.offset > 0 ? ` + ${by.offset}` : ` - ${-by.offset}`;
    return by.kind === "lockEnd"
      ? `advance(to the lock end of receipt #${by.receiptIndex}${edge})`
      : `advance(to the next due moment${edge})`;
  }
}

const queueName = fc.constantFrom(...QUEUE_NAMES);
const offset = fc.constantFrom(-1, 0, 1);

/** Queue options as the runs vary them: short locks, few deliveries, with and without dead-letter queue, delays, time to live and deduplication. */
export const queueOptionsArbitrary: fc.Arbitrary<ModelQueueOptions> = fc.record(
  {
    lockDurationMs: fc.constantFrom(1_000, 5_000, 30_000),
    maxDeliveryCount: fc.constantFrom<number | null>(1, 2, 3, null),
    deadLetterQueue: fc.constant(null),
    defaultDelayMs: fc.constantFrom(0, 1_000),
    defaultTimeToLiveMs: fc.constantFrom<number | null>(2_000, 10_000, null),
    deduplicationWindowMs: fc.constantFrom(0, 2_000, 300_000),
  },
  { requiredKeys: [] },
);

const sendOptions: fc.Arbitrary<Omit<ModelSend, "body">> = fc.record(
  {
    delayMs: fc.constantFrom(0, 1, 999, 1_000, 2_500),
    timeToLiveMs: fc.constantFrom(1, 1_000, 3_000, 60_000),
    deduplicationId: fc.constantFrom("d1", "d2"),
  },
  { requiredKeys: [] },
);

const settlement: fc.Arbitrary<Settlement> = fc.oneof(
  fc.constant<Settlement>({ kind: "complete" }),
  fc.record({ kind: fc.constant("abandon" as const), delayMs: fc.constantFrom(undefined, 0, 1_000, 2_500) }),
  fc.record({
    kind: fc.constant("deadLetter" as const),
    reason: fc.constantFrom("bad", "poison"),
    description: fc.constantFrom(undefined, "why"),
  }),
  fc.constant<Settlement>({ kind: "renew" }),
);

const advanceBy: fc.Arbitrary<AdvanceBy> = fc.oneof(
  fc.record({
    kind: fc.constant("fixed" as const),
    ms: fc.constantFrom(0, 1, 999, 1_000, 1_001, 5_000, 31_000),
  }),
  fc.record({ kind: fc.constant("lockEnd" as const), receiptIndex: fc.nat(5), offset }),
  fc.record({ kind: fc.constant("nextDue" as const), offset }),
);

/** Every command, weighted towards sends, receives, settles and time. */
export const commandArbitraries: fc.Arbitrary<WorldCommand>[] = [
  fc.tuple(queueName, queueOptionsArbitrary).map(([name, options]) => new CreateQueue(name, options)),
  ...Array.from({ length: 3 }, () =>
    fc.tuple(queueName, sendOptions).map(([queue, options]) => new Send(queue, options)),
  ),
  ...Array.from({ length: 2 }, () =>
    fc.tuple(queueName, fc.integer({ min: 1, max: 3 })).map(([queue, max]) => new Receive(queue, max)),
  ),
  ...Array.from({ length: 3 }, () =>
    fc
      .tuple(fc.nat(5), settlement, fc.boolean())
      .map(([index, what, viaSecond]) => new Settle(index, what, viaSecond)),
  ),
  queueName.map((queue) => new Purge(queue)),
  ...Array.from({ length: 3 }, () => advanceBy.map((by) => new Advance(by))),
];

/** Compares one queue's counts alone, without reading any other queue first (for replays of known differences). */
export class Stats implements WorldCommand {
  constructor(readonly queue: string) {}
  /** Always possible. */
  check(): true {
    return true;
  }
  /** Reads the counts on both sides. */
  run(_: World, world: World): Promise<void> {
    return world.compareStats(this.queue);
  }
  /** How the step shows in a shrunk counterexample. */
  toString(): string {
    return `stats(${this.queue})`;
  }
}
