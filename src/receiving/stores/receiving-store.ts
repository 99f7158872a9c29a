import type { ParkReason, Problem } from "../problems.js";

/** An event to keep: its id recorded under its queue and, for its subscribers, an outbox row and a delivery each. */
export interface EventToKeep {
  /** The receiver's name for the queue. */
  readonly queue: string;
  readonly id: string;
  readonly event: string;
  /** The kept value as JSON text. */
  readonly payload: string;
  /** One delivery is written for each; none means no outbox row either. */
  readonly subscribers: readonly string[];
  /** The parked message an operator retried that this event was read from: its record goes with the commit. */
  readonly parkedId?: number | undefined;
}

/** A message to park whole, once per queue and body. */
export interface MessageToPark {
  readonly queue: string;
  readonly body: Uint8Array;
  /** SHA-256 of the body, hex: with the queue, what makes two copies one record. */
  readonly bodyHash: string;
  readonly reason: ParkReason;
  readonly problems: readonly Problem[];
  /** The event it was read as, when one was named. */
  readonly event: string | undefined;
  /** Where its type was read, so that an `unlisted_type` label can show it (read from the body when listed, never copied out of it). */
  readonly typeAt: string | undefined;
}

/** What one transaction keeps and parks. */
export interface Commit {
  readonly keep: readonly EventToKeep[];
  readonly park: readonly MessageToPark[];
}

/** Whether an event was recorded by this commit or had been before. */
export type KeepOutcome = "kept" | "repeat";

/** A parked message an operator retried, to be read again. */
export interface RetriedMessage {
  readonly parkedId: number;
  readonly queue: string;
  readonly body: Uint8Array;
}

/** Which deliveries to claim, and for how long. */
export interface DeliveryClaim {
  readonly subscribers: readonly string[];
  readonly now: number;
  readonly since: number;
  readonly limit: number;
  readonly claimedUntil: number;
}

/** A delivery claimed for one attempt. */
export interface ClaimedDelivery {
  readonly deliveryId: number;
  readonly subscriber: string;
  readonly queue: string;
  readonly eventId: string;
  readonly event: string;
  readonly payload: string;
  /** This attempt's number, 1 for the first. */
  readonly attempt: number;
  /** Identifies this claim: a settlement of an older claim is ignored. */
  readonly claim: number;
}

/**
 * How an attempt ended: done (the delivery is removed), again later, or failed for good; or,
 * `released`, that it never started (its claim had too little time left) and is due as before.
 */
export type DeliverySettlement =
  | { readonly deliveryId: number; readonly claim: number; readonly outcome: "done" }
  | { readonly deliveryId: number; readonly claim: number; readonly outcome: "released" }
  | {
      readonly deliveryId: number;
      readonly claim: number;
      readonly outcome: "retry" | "failed";
      /** When it is due again (for `retry`). */
      readonly dueAt: number;
      /** The error's code or name: never its message, which may quote the event. */
      readonly error: string;
    };

/** A failed delivery or a parked message, as the store holds it. */
export type FailedItem =
  | {
      readonly kind: "parked";
      readonly id: number;
      readonly queue: string;
      readonly reason: ParkReason;
      readonly problems: readonly Problem[];
      readonly event: string | undefined;
      readonly typeAt: string | undefined;
      readonly body: Uint8Array;
      readonly failedAt: number;
    }
  | {
      readonly kind: "delivery";
      readonly id: number;
      readonly subscriber: string;
      readonly event: string;
      readonly error: string;
      readonly attempts: number;
      readonly failedAt: number;
    };

/** Which item an operator names. */
export interface ItemRef {
  readonly kind: "parked" | "delivery";
  readonly id: number;
}

/**
 * Where a receiver keeps what it received: recorded ids, the outbox, deliveries, parked messages.
 * Every method is one transaction; a failure is a `QueueError` whose `isTransient` says whether
 * the store cannot do it now (locked, disconnected) or refuses it as it would every time.
 */
export interface ReceivingStore {
  /** A name for messages and logs, without secrets (`sqlite app.db`, `postgres 127.0.0.1:5432/test`). */
  readonly description: string;
  /** Opens the store and creates or migrates its tables; safe to call again and from many processes at once. */
  open(): Promise<void>;
  /** In one transaction: records and writes each event unless its id is recorded already, and parks each message. */
  commit(commit: Commit, now: number): Promise<KeepOutcome[]>;
  /** Up to `limit` parked messages an operator retried, of these queues, oldest retry first. */
  retriedMessages(queues: readonly string[], limit: number): Promise<RetriedMessage[]>;
  /**
   * Claims up to `limit` deliveries of these subscribers that are due by `now`, claimed by no one
   * else, and not attempted since `since` (so that a tick runs each at most once), until `claimedUntil`.
   */
  claimDeliveries(claim: DeliveryClaim): Promise<ClaimedDelivery[]>;
  /** Records how claimed attempts ended; a settlement whose claim was superseded is ignored. */
  settleDeliveries(settlements: readonly DeliverySettlement[], now: number): Promise<void>;
  /** Deletes ids recorded and items dismissed before `before` (ms since the epoch). */
  expire(before: number): Promise<void>;
  /** Every failed delivery and parked message, oldest failure first. */
  failedItems(): Promise<FailedItem[]>;
  /** Makes a failed item pending again (a delivery due at `now` with a fresh retry budget); false when it is not failed. */
  retry(item: ItemRef, now: number): Promise<boolean>;
  /** Sets a failed item aside, to be deleted once expired; false when it is not failed. */
  dismiss(item: ItemRef, now: number): Promise<boolean>;
  /** Closes what the store opened (never a pool it was given). */
  close(): Promise<void>;
}
