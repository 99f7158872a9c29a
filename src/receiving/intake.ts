import { createHash } from "node:crypto";
import type { Clock } from "../core/clock.js";
import { type QueueError, toQueueError } from "../core/errors.js";
import { REFUSED_BY_STORE } from "./problems.js";
import { type Reading, readMessage } from "./reading.js";
import type { ResolvedQueue } from "./receiver-config.js";
import type { EventToKeep, MessageToPark, ReceivingStore } from "./stores/receiving-store.js";

/** What became of a message: its event kept, a repeat of one kept before, parked, or left on its queue. */
export type MessageOutcome = "kept" | "repeat" | "parked" | "left";

/** A message to take in: its body, and the parked record it was read from when an operator retried it. */
export interface Arrival {
  readonly body: Uint8Array;
  readonly parkedId?: number | undefined;
}

/** What taking in a batch gave: an outcome per message, and why any was left. */
export interface IntakeResult {
  readonly outcomes: MessageOutcome[];
  /** The store's failure that left messages on their queue, if any did. */
  readonly failure: QueueError | undefined;
}

/** One message of a batch, read, on its way to the store. */
type Pending = (
  | { readonly kind: "keep"; readonly event: EventToKeep; readonly body: Uint8Array }
  | { readonly kind: "park"; readonly message: MessageToPark }
) & {
  /** An earlier message of the batch with the same id (or body): this one shares its fate in a batch commit. */
  readonly copyOf: number | undefined;
};

/**
 * Turns messages into events in the store: reads each, then keeps and parks the batch in one
 * transaction. When the store refuses the batch as a statement, each message is tried alone so
 * that only the one it refuses is parked (`unreadable`); when it cannot take it now, every
 * message is left for its queue to deliver again.
 */
export class Intake {
  readonly #store: ReceivingStore;
  readonly #clock: Clock;
  readonly #subscribersOf: ReadonlyMap<string, readonly string[]>;

  constructor(store: ReceivingStore, clock: Clock, subscribersOf: ReadonlyMap<string, readonly string[]>) {
    this.#store = store;
    this.#clock = clock;
    this.#subscribersOf = subscribersOf;
  }

  /** Reads and stores a batch of one queue's messages; never throws. */
  async take(queue: ResolvedQueue, arrivals: readonly Arrival[]): Promise<IntakeResult> {
    if (arrivals.length === 0) return { outcomes: [], failure: undefined };
    const read = arrivals.map((arrival) => readMessage(queue.rules, arrival.body));
    // Most schemas answer at once: only a batch with an answer still to come waits, as a whole.
    const readings = read.some((reading) => reading instanceof Promise)
      ? await Promise.all(read)
      : (read as Reading[]);
    const pending = this.#pending(queue, arrivals, readings);
    try {
      return { outcomes: await this.#commit(pending), failure: undefined };
    } catch (error) {
      const failure = toQueueError(error);
      if (failure.isTransient) return { outcomes: pending.map(() => "left"), failure };
      return this.#oneByOne(queue, pending);
    }
  }

  #pending(queue: ResolvedQueue, arrivals: readonly Arrival[], readings: readonly Reading[]): Pending[] {
    const firstById = new Map<string, number>();
    const firstByBody = new Map<string, number>();
    return readings.map((reading, index): Pending => {
      const arrival = arrivals[index]!;
      if (reading.kind === "event") {
        const copyOf = firstById.get(reading.id);
        if (copyOf === undefined) firstById.set(reading.id, index);
        const event: EventToKeep = {
          queue: queue.name,
          id: reading.id,
          event: reading.event.name,
          payload: reading.payload,
          subscribers: this.#subscribersOf.get(reading.event.name) ?? [],
          parkedId: arrival.parkedId,
        };
        return { kind: "keep", event, body: arrival.body, copyOf };
      }
      const message = toPark(queue, arrival.body, reading.reason, reading.problems, reading.event);
      const copyOf = firstByBody.get(message.bodyHash);
      if (copyOf === undefined) firstByBody.set(message.bodyHash, index);
      return { kind: "park", message, copyOf };
    });
  }

  /** Keeps and parks in one transaction; a copy of an earlier message is a repeat of its event, or the same parked record. */
  async #commit(pending: readonly Pending[]): Promise<MessageOutcome[]> {
    const keep: EventToKeep[] = [];
    const park: MessageToPark[] = [];
    for (const item of pending) {
      if (item.copyOf !== undefined) continue;
      if (item.kind === "keep") keep.push(item.event);
      else park.push(item.message);
    }
    const kept = await this.#store.commit({ keep, park }, this.#clock.now());
    let next = 0;
    return pending.map((item) => {
      if (item.kind === "park") return "parked";
      if (item.copyOf !== undefined) return "repeat";
      return kept[next++] === "kept" ? "kept" : "repeat";
    });
  }

  /** Tries each message in a transaction of its own: one the store refuses is parked, the rest go on. */
  async #oneByOne(queue: ResolvedQueue, pending: readonly Pending[]): Promise<IntakeResult> {
    const outcomes: MessageOutcome[] = [];
    let failure: QueueError | undefined;
    for (const item of pending) {
      const alone = { ...item, copyOf: undefined };
      try {
        outcomes.push(...(await this.#commit([alone])));
        continue;
      } catch (error) {
        const refused = toQueueError(error);
        if (refused.isTransient || alone.kind !== "keep") {
          outcomes.push("left");
          failure ??= refused;
          continue;
        }
      }
      // The store refuses this event as it would every time: it is parked, as a message it cannot read.
      const message = toPark(queue, alone.body, "unreadable", [REFUSED_BY_STORE], alone.event.event);
      try {
        outcomes.push(...(await this.#commit([{ kind: "park", message, copyOf: undefined }])));
      } catch (error) {
        outcomes.push("left");
        failure ??= toQueueError(error);
      }
    }
    return { outcomes, failure };
  }
}

/** A message to park, with the hash that makes copies of it one record. */
function toPark(
  queue: ResolvedQueue,
  body: Uint8Array,
  reason: MessageToPark["reason"],
  problems: MessageToPark["problems"],
  event: string | undefined,
): MessageToPark {
  return {
    queue: queue.name,
    body,
    bodyHash: createHash("sha256").update(body).digest("hex"),
    reason,
    problems,
    event,
    typeAt: reason === "unlisted_type" ? queue.rules.typeAt?.text : undefined,
  };
}
