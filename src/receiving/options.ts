import type { Clock } from "../core/clock.js";
import type { QueueClient } from "../core/queue-client.js";
import type { RetryPolicy } from "../core/retry.js";
import type { EventDefinition, EventValue } from "./events.js";
import type { ReceivingStore } from "./stores/receiving-store.js";

/** A queue the receiver reads: its name in the store, the client and queue it comes from, and how to read it. */
export interface QueueSource {
  /** The queue's name in the store and in labels (`warehouse_queue`); ids are recorded under it. */
  readonly name: string;
  /** Where messages come from; a queue without a client is only handed batches (`receiveBatch`). */
  readonly client?: QueueClient;
  /** The queue's name on the client (default: `name`). */
  readonly queue?: string;
  /** The dotted path of the message id in the body: a non-empty text or a whole number. */
  readonly idAt: string;
  /** The dotted path of the type text, matched against each event's `wireName`; leave it out on a queue of one event. */
  readonly typeAt?: string;
  /** The events the queue may carry. */
  readonly events: readonly EventDefinition[];
}

/** What a subscriber's `handle` is told beside the event. */
export interface DeliveryContext {
  /** The same for every attempt of this delivery, and the id `deliveries.list()` shows once it has failed. */
  readonly deliveryId: string;
  /** Which attempt this is, 1 for the first. */
  readonly attempt: number;
  /** The event's name (`OrderShipped`), to tell events apart in a subscriber of several. */
  readonly eventName: string;
  /** The event's id as read from its message. */
  readonly eventId: string;
  /** The queue it was received from (its `name`). */
  readonly queue: string;
  /** Aborted when the attempt's time (`timeoutMs`) is up; the attempt then counts as failed. */
  readonly signal: AbortSignal;
}

/** Code that runs for each event it subscribes to, from the outbox, with retries. */
export interface Subscriber<Events extends readonly EventDefinition[] = readonly EventDefinition[]> {
  readonly name: string;
  readonly events: Events;
  /** Handles one event; throwing (or rejecting) makes the attempt fail, to be retried with backoff. */
  handle(event: EventValue<Events[number]>, context: DeliveryContext): Promise<void> | void;
  /** This subscriber's retries (default: the receiver's `retryPolicy`). */
  readonly retryPolicy?: Partial<RetryPolicy>;
  /** How long one attempt may take (default: the receiver's `subscriberTimeoutMs`). */
  readonly timeoutMs?: number;
}

/** The events of each subscriber of a receiver, in order: how each `handle` gets its event's type. */
export type SubscribedEvents = readonly (readonly EventDefinition[])[];

/** Everything a {@link Receiver} is made of. */
export interface ReceiverOptions<Subscribed extends SubscribedEvents = SubscribedEvents> {
  /** Where events, outbox, deliveries and parked messages are kept: `sqliteStore(path)` or `postgresStore(pool)`. */
  readonly store: ReceivingStore;
  readonly queues: readonly QueueSource[];
  /** Each subscriber's `handle` is typed by its own `events`. */
  readonly subscribers?: { readonly [K in keyof Subscribed]: Subscriber<Subscribed[K]> };
  /** The time for retention, backoff, the tick's budget and the started receiver's interval (default: the system clock). */
  readonly clock?: Clock;
  /** How often a started receiver ticks (default 1 000 ms, at most 10 000). */
  readonly intervalMs?: number;
  /** How long a tick may go on asking queues for batches (default 5 000 ms). */
  readonly tickBudgetMs?: number;
  /** Subscriber retries: default 10 attempts, 10 s doubling up to 1 h, with jitter (about 1.4 h from first to last). */
  readonly retryPolicy?: Partial<RetryPolicy>;
  /** How long one subscriber attempt may take before it counts as failed (default 60 000 ms). */
  readonly subscriberTimeoutMs?: number;
  /** Subscriber attempts run at once (default 10). */
  readonly concurrency?: number;
  /** Told of what a started receiver cannot report by rejecting: a failed tick (default: one line on stderr). */
  readonly onError?: (error: unknown) => void;
}

/** Declares a subscriber with its handler's event type inferred from `events`. */
export function defineSubscriber<const Events extends readonly EventDefinition[]>(
  subscriber: Subscriber<Events>,
): Subscriber<Events> {
  return subscriber;
}
