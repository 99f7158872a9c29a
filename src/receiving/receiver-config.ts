import { type Clock, systemClock } from "../core/clock.js";
import { QueueError } from "../core/errors.js";
import type { QueueClient } from "../core/queue-client.js";
import { type RetryPolicy, resolveRetryPolicy } from "../core/retry.js";
import type { EventDefinition } from "./events.js";
import type { QueueSource, ReceiverOptions, Subscriber } from "./options.js";
import { bodyPath } from "./paths.js";
import type { ReadingRules } from "./reading.js";
import type { ReceivingStore } from "./stores/receiving-store.js";

/** A queue as the receiver reads it. */
export interface ResolvedQueue {
  readonly name: string;
  readonly client: QueueClient | undefined;
  readonly queue: string;
  readonly rules: ReadingRules;
}

/** A subscriber with its retries and timeout settled. */
export interface ResolvedSubscriber {
  readonly name: string;
  readonly handle: Subscriber["handle"];
  readonly retryPolicy: RetryPolicy;
  readonly timeoutMs: number;
}

/** A receiver's options, checked, with every default filled in. */
export interface ResolvedReceiver {
  readonly store: ReceivingStore;
  readonly clock: Clock;
  readonly queues: ReadonlyMap<string, ResolvedQueue>;
  readonly subscribers: ReadonlyMap<string, ResolvedSubscriber>;
  /** The names of the subscribers of each event. */
  readonly subscribersOf: ReadonlyMap<string, readonly string[]>;
  readonly intervalMs: number;
  readonly tickBudgetMs: number;
  readonly concurrency: number;
  readonly onError: (error: unknown) => void;
}

/** The default subscriber retries: 10 attempts, 10 s doubling to 1 h with jitter, about 1.4 h from first to last. */
export const DEFAULT_SUBSCRIBER_RETRY: Readonly<RetryPolicy> = Object.freeze({
  maxAttempts: 10,
  initialDelayMs: 10_000,
  maxDelayMs: 3_600_000,
  multiplier: 2,
  jitter: true,
});

/** The longest a started receiver waits between ticks. */
export const MAX_TICK_INTERVAL_MS = 10_000;

const invalid = (rule: string) => new QueueError("Configuration", `receiving.invalid: ${rule}`);

/** Checks a receiver's options; a mistake is a `Configuration` error naming the rule it breaks. */
export function resolveReceiver(options: ReceiverOptions): ResolvedReceiver {
  if (options === null || typeof options !== "object") throw invalid("a Receiver takes an options object");
  const store = options.store;
  if (store === null || typeof store !== "object" || typeof store.commit !== "function")
    throw new QueueError(
      "Configuration",
      "event.store_required: a receiver needs a store to keep its events: sqliteStore(path) or postgresStore(pool)",
    );
  if (!Array.isArray(options.queues) || options.queues.length === 0)
    throw invalid("a receiver needs at least one queue in `queues`");
  const events = new Map<string, EventDefinition>();
  const queues = new Map<string, ResolvedQueue>();
  for (const source of options.queues as readonly QueueSource[]) {
    const queue = resolveQueue(source, events);
    if (queues.has(queue.name)) throw invalid(`two queues are named ${queue.name}`);
    queues.set(queue.name, queue);
  }
  const retryPolicy = retryPolicyOf("retryPolicy", DEFAULT_SUBSCRIBER_RETRY, options.retryPolicy);
  const timeoutMs = whole("subscriberTimeoutMs", options.subscriberTimeoutMs ?? 60_000, 1, 86_400_000);
  const subscribers = new Map<string, ResolvedSubscriber>();
  const subscribersOf = new Map<string, string[]>();
  for (const subscriber of (options.subscribers ?? []) as readonly Subscriber[]) {
    const resolved = resolveSubscriber(subscriber, retryPolicy, timeoutMs);
    if (subscribers.has(resolved.name)) throw invalid(`two subscribers are named ${resolved.name}`);
    subscribers.set(resolved.name, resolved);
    for (const event of new Set(subscriber.events)) {
      if (events.get(event?.name) !== event)
        throw invalid(`subscriber ${resolved.name} listens to ${describeEvent(event)}, which no queue lists`);
      subscribersOf.set(event.name, [...(subscribersOf.get(event.name) ?? []), resolved.name]);
    }
  }
  const onError = options.onError ?? reportOnStderr;
  if (typeof onError !== "function") throw invalid("onError must be a function");
  return {
    store,
    clock: options.clock ?? systemClock,
    queues,
    subscribers,
    subscribersOf,
    intervalMs: whole("intervalMs", options.intervalMs ?? 1_000, 1, MAX_TICK_INTERVAL_MS),
    tickBudgetMs: whole("tickBudgetMs", options.tickBudgetMs ?? 5_000, 0, 3_600_000),
    concurrency: whole("concurrency", options.concurrency ?? 10, 1, 1_000),
    onError,
  };
}

function resolveQueue(source: QueueSource, events: Map<string, EventDefinition>): ResolvedQueue {
  if (source === null || typeof source !== "object") throw invalid("each entry of `queues` is an object");
  const name = source.name;
  if (typeof name !== "string" || name.length === 0) throw invalid("a queue needs a name");
  const client = source.client;
  if (
    client !== undefined &&
    (typeof client?.receiveMessages !== "function" || typeof client.completeMessage !== "function")
  )
    throw invalid(`queue ${name}: client must be a QueueClient`);
  const queue = source.queue ?? name;
  if (typeof queue !== "string" || queue.length === 0)
    throw invalid(`queue ${name}: queue must be a queue name`);
  const idAt = bodyPath(`queue ${name}: idAt`, source.idAt);
  const typeAt = source.typeAt === undefined ? undefined : bodyPath(`queue ${name}: typeAt`, source.typeAt);
  if (!Array.isArray(source.events) || source.events.length === 0)
    throw invalid(`queue ${name} lists no events`);
  const listed = new Set<EventDefinition>(source.events);
  for (const event of listed) {
    if (typeof event?.name !== "string" || typeof event.schema?.["~standard"]?.validate !== "function")
      throw invalid(`queue ${name}: each of its events comes from defineEvent`);
    const known = events.get(event.name);
    if (known !== undefined && known !== event) throw invalid(`two different events are named ${event.name}`);
    events.set(event.name, event);
  }
  const byWireName = new Map<string, EventDefinition>();
  if (typeAt === undefined) {
    if (listed.size !== 1)
      throw invalid(`queue ${name} has no typeAt, so it lists one event, not ${listed.size}`);
  } else
    for (const event of listed) {
      if (event.wireName === undefined)
        throw invalid(`event ${event.name} needs a wireName: queue ${name} reads its type at ${typeAt.text}`);
      const other = byWireName.get(event.wireName);
      if (other !== undefined)
        throw invalid(
          `queue ${name}: events ${other.name} and ${event.name} have the same wireName ${event.wireName}`,
        );
      byWireName.set(event.wireName, event);
    }
  return {
    name,
    client,
    queue,
    rules: { idAt, typeAt, byWireName, only: typeAt === undefined ? [...listed][0] : undefined },
  };
}

function resolveSubscriber(
  subscriber: Subscriber,
  defaults: RetryPolicy,
  timeoutMs: number,
): ResolvedSubscriber {
  if (subscriber === null || typeof subscriber !== "object") throw invalid("each subscriber is an object");
  const name = subscriber.name;
  if (typeof name !== "string" || name.length === 0) throw invalid("a subscriber needs a name");
  if (typeof subscriber.handle !== "function") throw invalid(`subscriber ${name} needs a handle function`);
  if (!Array.isArray(subscriber.events) || subscriber.events.length === 0)
    throw invalid(`subscriber ${name} listens to no events`);
  return {
    name,
    handle: subscriber.handle.bind(subscriber),
    retryPolicy: retryPolicyOf(`subscriber ${name}: retryPolicy`, defaults, subscriber.retryPolicy),
    timeoutMs: whole(`subscriber ${name}: timeoutMs`, subscriber.timeoutMs ?? timeoutMs, 1, 86_400_000),
  };
}

/** A retry policy over `defaults`; a bad one is a configuration mistake like any other option. */
function retryPolicyOf(
  what: string,
  defaults: RetryPolicy,
  policy: Partial<RetryPolicy> | undefined,
): RetryPolicy {
  try {
    return resolveRetryPolicy({ ...defaults, ...policy });
  } catch (error) {
    throw invalid(`${what}: ${(error as Error).message}`);
  }
}

function describeEvent(event: EventDefinition | undefined): string {
  return typeof event?.name === "string" ? event.name : "an event not made by defineEvent";
}

function whole(what: string, value: unknown, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max)
    throw invalid(`${what} must be a whole number from ${min} to ${max}`);
  return value;
}

function reportOnStderr(error: unknown): void {
  console.error(`queue-runtime receiver: ${error instanceof Error ? error.message : String(error)}`);
}
