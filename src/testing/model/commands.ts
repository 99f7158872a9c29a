import type fc from "fast-check";
import type { QueueOptions } from "../../core/admin.js";
import type { BatchEntryResult } from "../../core/errors.js";
import { modelOutcome, type Outcome, realOutcome, sameOutcome, sameResult, sameValue } from "./outcome.js";
import type { ModelQueueOptions, ModelSend } from "./queue-model.js";
import type { World } from "./world.js";

/** One step of a run: done on the model and on the provider, then compared. */
export type WorldCommand = fc.AsyncCommand<World, World, false>;

/** The queue names commands pick from: standard queues, a FIFO one, and dead-letter queues used directly. */
export const QUEUE_NAMES = ["qa", "qb", "qa-dlq", "qf.fifo", "qf-dlq.fifo"] as const;

/** The FIFO queue of a run (its dead-letter queue is FIFO too): named as SQS needs a FIFO queue named. */
export const FIFO_QUEUE = "qf.fifo";

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
  /** Creates the queue (FIFO when named so) and compares the outcome. */
  async run(_: World, world: World): Promise<void> {
    const options = { ...this.options, fifo: this.name.endsWith(".fifo") };
    const model = modelOutcome(() => world.model.createQueue(this.name, options));
    const real = await realOutcome(() => world.client.admin.createQueue(this.name, options as QueueOptions));
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
    const message = { body: world.nextBody(), ...this.options };
    const model = modelOutcome(() => world.model.send(this.queue, message));
    const real = await realOutcome(() => world.client.sendMessage(this.queue, message));
    const both = sameOutcome(String(this), model, real);
    if (both !== undefined) world.matchIds(String(this), [message.body], [both.model], [both.real]);
  }
  /** How the step shows in a shrunk counterexample. */
  toString(): string {
    return `send(${this.queue}, ${JSON.stringify(this.options)})`;
  }
}

/** Sends messages in one call: up to the provider's batch limit and past it (the client splits). */
export class SendBatch implements WorldCommand {
  constructor(
    readonly queue: string,
    readonly entries: readonly Omit<ModelSend, "body">[],
  ) {}
  /** Always possible. */
  check(): true {
    return true;
  }
  /**
   * Sends on both sides. A batch with a refused entry fails as a whole with
   * `PartialBatchFailure`, whose results must say which entries went and why the others did not.
   */
  async run(_: World, world: World): Promise<void> {
    const messages = this.entries.map((options) => ({ body: world.nextBody(), ...options }));
    const label = String(this);
    const model = modelOutcome(() => world.model.sendBatch(this.queue, messages));
    const real = await realBatchOutcome(() => world.client.sendMessages(this.queue, messages));
    const both = sameOutcome(label, model, real);
    if (both === undefined) return;
    sameEntries(label, both.model, both.real);
    const sent = messages.filter((_, index) => "body" in both.model[index]!).map((message) => message.body);
    world.matchIds(
      label,
      sent,
      both.model.flatMap((entry) => ("body" in entry ? [entry.body] : [])),
      both.real.flatMap((entry) => (entry.ok ? [entry.messageId] : [])),
    );
  }
  /** How the step shows in a shrunk counterexample. */
  toString(): string {
    return `sendBatch(${this.queue}, ${JSON.stringify(this.entries)})`;
  }
}

/** Compares a batch's entries: which went on both sides, and the code of each that did not. */
export function sameEntries(
  label: string,
  model: readonly ({ readonly body: string } | { readonly code: string })[],
  real: readonly BatchEntryResult[],
): void {
  sameValue(
    label,
    model.map((entry) => ("body" in entry ? "sent" : entry.code)),
    real.map((entry) => (entry.ok ? "sent" : entry.error.code)),
  );
}

/** A batch send's outcome per entry: a partial failure is an answer too, its results in the error. */
export async function realBatchOutcome(call: () => Promise<string[]>): Promise<Outcome<BatchEntryResult[]>> {
  const outcome = await realOutcome(call);
  if (outcome.ok) return { ok: true, value: outcome.value.map((messageId) => ({ ok: true, messageId })) };
  if (outcome.code !== "PartialBatchFailure") return outcome;
  return { ok: true, value: [...(outcome.error?.results ?? [])] };
}

/** Receives up to `max` messages (all of them from a queue whose order is not specified). */
export class Receive implements WorldCommand {
  constructor(
    readonly queue: string,
    readonly max: number,
  ) {}
  /** Always possible, but where the provider picks the session a receive borrows and more than one is free. */
  check(world: Readonly<World>): boolean {
    return !world.model.nextSessionUnspecified(this.queue);
  }
  /** Receives on both sides and compares what came, in order. */
  async run(_: World, world: World): Promise<void> {
    // Which dead letters come first is not specified, so such a queue is always drained whole.
    const max = world.model.orderUnspecified(this.queue) ? 1_000 : this.max;
    const model = modelOutcome(() => world.receiveInRuns(this.queue, max));
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
    const by = this.viaSecond ? "other" : "receiver";
    if (s.kind === "renew") {
      const model = modelOutcome(() => world.model.renew(pair.model, by));
      const real = await realOutcome(() => client.renewMessageLock(receipt));
      const both = sameOutcome(label, model, real);
      if (both !== undefined) sameValue(`${label}: new lock end`, both.model, both.real.getTime());
      return;
    }
    const model = modelOutcome(() => {
      if (s.kind === "complete") world.model.complete(pair.model, by);
      else if (s.kind === "abandon") world.model.abandon(pair.model, s.delayMs, by);
      else world.model.deadLetter(pair.model, s.reason, s.description, by);
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

/** What a {@link QueueAdminCall} does: empty a queue (answering how many went), or delete it (its dead-letter queue stays). */
export type QueueAdminKind = "purge" | "deleteQueue";

/** Purges or deletes a queue. */
export class QueueAdminCall implements WorldCommand {
  constructor(
    readonly kind: QueueAdminKind,
    readonly queue: string,
  ) {}
  /** Always possible. */
  check(): true {
    return true;
  }
  /** Calls on both sides; both must answer alike. */
  async run(_: World, world: World): Promise<void> {
    const { model, client } = world;
    const purge = this.kind === "purge";
    await sameResult<unknown>(
      String(this),
      () => (purge ? model.purge(this.queue) : model.deleteQueue(this.queue)),
      () => (purge ? client.admin.purgeQueue(this.queue) : client.admin.deleteQueue(this.queue)),
    );
  }
  /** How the step shows in a shrunk counterexample. */
  toString(): string {
    return `${this.kind}(${this.queue})`;
  }
}

/** Moves a dead-letter queue's messages back to where they came from, or to `target`. */
export class Redrive implements WorldCommand {
  constructor(
    readonly queue: string,
    readonly target: string | undefined,
  ) {}
  /** Always possible (from a queue that is no dead-letter queue, too). */
  check(): true {
    return true;
  }
  /** Redrives on both sides; both must move as many. */
  async run(_: World, world: World): Promise<void> {
    await sameResult(
      String(this),
      () => world.model.redrive(this.queue, this.target),
      () => world.client.admin.redrive(this.queue, this.target),
    );
  }
  /** How the step shows in a shrunk counterexample. */
  toString(): string {
    return `redrive(${this.queue}${this.target === undefined ? "" : ` to ${this.target}`})`;
  }
}

/** Accepts a session of a queue: a named one, or the next free one. */
export class AcceptSession implements WorldCommand {
  constructor(
    readonly queue: string,
    readonly sessionId: string | undefined,
  ) {}
  /** Which session is next is not specified where the queue's order is not. */
  check(world: Readonly<World>): boolean {
    return (
      this.sessionId !== undefined ||
      (!world.model.orderUnspecified(this.queue) && !world.model.nextSessionUnspecified(this.queue))
    );
  }
  /** Accepts on both sides without waiting; both must hold the same session until the same moment. */
  async run(_: World, world: World): Promise<void> {
    const model = modelOutcome(() => world.model.acceptSession(this.queue, this.sessionId));
    const real = await realOutcome(() => world.client.acceptSession(this.queue, this.sessionId, 0));
    const both = sameOutcome(String(this), model, real);
    if (both === undefined) return;
    world.sessions.push({ model: both.model, real: both.real, queue: this.queue });
    sameValue(
      String(this),
      { sessionId: both.model.sessionId, lockedUntil: both.model.lockedUntil },
      { sessionId: both.real.sessionId, lockedUntil: both.real.sessionExpiresAt.getTime() },
    );
  }
  /** How the step shows in a shrunk counterexample. */
  toString(): string {
    return `acceptSession(${this.queue}${this.sessionId === undefined ? "" : `, ${this.sessionId}`})`;
  }
}

/** What a step does with an accepted session. */
export type SessionStep =
  | { readonly kind: "receive"; readonly max: number }
  | { readonly kind: "renew" }
  | { readonly kind: "getState" }
  | { readonly kind: "setState"; readonly state: string | null }
  | { readonly kind: "close" };

/** Uses a session accepted earlier (maybe closed, lost or taken over since). */
export class UseSession implements WorldCommand {
  constructor(
    readonly sessionIndex: number,
    readonly step: SessionStep,
  ) {}
  /** Needs a session. */
  check(world: Readonly<World>): boolean {
    return world.sessions.length > 0;
  }
  /** Does the step on both sides and compares what each answered. */
  async run(_: World, world: World): Promise<void> {
    const pair = world.session(this.sessionIndex)!;
    const { model, real } = { model: pair.model.token, real: pair.real };
    const label = `${this} on ${pair.model.sessionId}`;
    const step = this.step;
    if (step.kind === "receive") {
      const max = world.model.orderUnspecified(pair.queue) ? 1_000 : step.max;
      const both = sameOutcome(
        label,
        modelOutcome(() => world.model.receiveFromSession(model, max)),
        await realOutcome(() => real.receiveMessages(max, 0)),
      );
      if (both !== undefined) world.matchDeliveries(pair.queue, both.model, both.real);
    } else if (step.kind === "renew")
      await sameResult(
        label,
        () => world.model.renewSession(model),
        async () => (await real.renewSessionLock()).getTime(),
      );
    else if (step.kind === "getState")
      await sameResult(
        label,
        () => world.model.sessionState(model),
        async () => {
          const state = await real.getSessionState();
          return state === null ? null : Buffer.from(state).toString("utf8");
        },
      );
    else if (step.kind === "setState")
      await sameResult(
        label,
        () => world.model.setSessionState(model, step.state),
        () => real.setSessionState(step.state),
      );
    else
      await sameResult(
        label,
        () => world.model.closeSession(model),
        () => real.closeSession(),
      );
  }
  /** How the step shows in a shrunk counterexample. */
  toString(): string {
    const { kind, ...rest } = this.step;
    return `session #${this.sessionIndex} from newest: ${kind}(${JSON.stringify(rest)})`;
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
