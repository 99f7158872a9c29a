import type { QueueOptions } from "../core/admin.js";
import { QueueError } from "../core/errors.js";
import type {
  SubscriptionInfo,
  SubscriptionOptions,
  SubscriptionRule,
  TopicInfo,
  TopicOptions,
} from "../core/topics.js";
import { parseSubscriptionPath, subscriptionPath } from "../core/topics.js";
import { validateCount, validateDuration, validateQueueName } from "../core/validation.js";
import { compileFilter, DEFAULT_RULE_NAME, MATCH_ALL, parseFilter } from "./filters/index.js";
import { MAX_DURATION_MS } from "./queue-defaults.js";
import { type QueueRecord, queueInfo } from "./queue-records.js";

/** A topic as a provider that keeps its own stores it. */
export interface TopicRecord {
  readonly name: string;
  readonly defaultTimeToLiveMs: number | null;
  readonly maxMessageBytes: number;
  readonly createdAt: number;
  /** Messages published to it since it was created. */
  readonly published: number;
  /** Settings a protocol keeps with the topic that the engine does not read (Service Bus's `servicebus:` ones). */
  readonly properties?: Readonly<Record<string, string>>;
}

/** A subscription as a provider that keeps its own stores it; its messages are the queue its path names. */
export interface SubscriptionRecord {
  readonly topic: string;
  readonly name: string;
  readonly rules: readonly SubscriptionRule[];
  /** The queue its copies go to instead of its own, if any. */
  readonly forwardTo: string | null;
  readonly createdAt: number;
}

/** The suffix of a subscription's dead-letter queue, after its path (as Service Bus names it). */
export const SUBSCRIPTION_DEAD_LETTERS = "/$deadletterqueue";

/** The name of the dead-letter queue of subscription `path`: `<path>/$deadletterqueue`. */
export function subscriptionDeadLetterQueue(path: string): string {
  return `${path}${SUBSCRIPTION_DEAD_LETTERS}`;
}

/** Whether `name` is a subscription's path or its dead-letter queue's name: a queue that belongs to a topic. */
export function belongsToTopic(name: string): boolean {
  const path = name.endsWith(SUBSCRIPTION_DEAD_LETTERS)
    ? name.slice(0, -SUBSCRIPTION_DEAD_LETTERS.length)
    : name;
  return parseSubscriptionPath(path) !== undefined;
}

/** A topic record from options; bad options fail with `Validation`. */
export function topicRecord(
  name: string,
  options: TopicOptions,
  maxMessageBytes: number,
  now: number,
): TopicRecord {
  validateQueueName(name);
  const ttl = options.defaultTimeToLiveMs ?? null;
  return {
    name,
    defaultTimeToLiveMs:
      ttl === null ? null : validateDuration("defaultTimeToLiveMs", ttl, 1, MAX_DURATION_MS),
    maxMessageBytes:
      options.maxMessageBytes === undefined
        ? maxMessageBytes
        : validateCount("maxMessageBytes", options.maxMessageBytes, 1, maxMessageBytes),
    createdAt: now,
    published: 0,
  };
}

/**
 * A subscription record and the queue options of its path from `options`: rules checked (a
 * subscription without rules gets `$Default`, matching everything), its dead-letter queue named
 * after its path unless the options name one.
 */
export function subscriptionRecord(
  topic: string,
  name: string,
  options: SubscriptionOptions,
  now: number,
): { record: SubscriptionRecord; queue: QueueOptions } {
  const { rules, forwardTo, ...queue } = options;
  if (name.includes("/"))
    throw new QueueError("Validation", `subscription name ${JSON.stringify(name)} may not hold '/'`);
  if (forwardTo !== undefined) validateQueueName(forwardTo);
  const checked = rules === undefined ? [{ name: DEFAULT_RULE_NAME, filter: MATCH_ALL }] : checkRules(rules);
  const path = subscriptionPath(topic, name);
  return {
    record: { topic, name, rules: checked, forwardTo: forwardTo ?? null, createdAt: now },
    queue: {
      ...queue,
      deadLetterQueue:
        queue.deadLetterQueue === undefined ? subscriptionDeadLetterQueue(path) : queue.deadLetterQueue,
    },
  };
}

/** Rules given by a caller, each with a name and a filter of a known shape, names unique. */
function checkRules(rules: unknown): SubscriptionRule[] {
  if (!Array.isArray(rules)) throw new QueueError("Validation", "rules must be an array of { name, filter }");
  const names = new Set<string>();
  return rules.map((rule: unknown) => {
    const { name, filter } = (rule ?? {}) as { name?: unknown; filter?: unknown };
    const checked = checkRule(name, filter);
    if (names.has(checked.name)) throw new QueueError("Validation", `rule ${checked.name} is given twice`);
    names.add(checked.name);
    return checked;
  });
}

/** One rule: a name of 1 to 50 characters and a filter that compiles. */
export function checkRule(name: unknown, filter: unknown): SubscriptionRule {
  if (typeof name !== "string" || name.length === 0 || name.length > 50)
    throw new QueueError("Validation", "a rule needs a name of 1 to 50 characters");
  const checked = parseFilter(filter);
  // Compiled once here so that an expression that does not parse is refused at creation.
  compileFilter(checked);
  return { name, filter: checked };
}

/** What `admin.getTopic` shows of a topic record. */
export function topicInfo(record: TopicRecord): TopicInfo {
  return {
    name: record.name,
    defaultTimeToLiveMs: record.defaultTimeToLiveMs,
    maxMessageBytes: record.maxMessageBytes,
    createdAt: new Date(record.createdAt),
  };
}

/** What `admin.getSubscription` shows: the queue its path names, with its topic and forwarding. */
export function subscriptionInfo(record: SubscriptionRecord, queue: QueueRecord): SubscriptionInfo {
  return {
    ...queueInfo(queue),
    topic: record.topic,
    subscription: record.name,
    forwardTo: record.forwardTo,
  };
}

/** `Validation` when a message's body is larger than the topic takes. */
export function oversizedForTopic(topic: TopicRecord, bodyBytes: number): QueueError | undefined {
  if (bodyBytes <= topic.maxMessageBytes) return undefined;
  return new QueueError(
    "Validation",
    `the message is ${bodyBytes} bytes; topic ${topic.name} takes up to ${topic.maxMessageBytes}`,
  );
}

/**
 * Why a copy cannot go where a subscription delivers: its queue is missing and `createQueues` is
 * off (`QueueNotFound`), or the queue takes sessions and the message has none (`Validation`).
 */
export function deliveryRefusal(
  subscription: SubscriptionRecord,
  queue: { readonly fifo: boolean } | undefined,
  sessionId: string | undefined,
  createQueues: boolean,
): QueueError | undefined {
  const path = subscriptionPath(subscription.topic, subscription.name);
  if (queue === undefined)
    return createQueues
      ? undefined
      : new QueueError(
          "QueueNotFound",
          `queue ${subscription.forwardTo ?? path}, where ${path} delivers, does not exist`,
        );
  if (queue.fifo && sessionId === undefined)
    return new QueueError(
      "Validation",
      `${subscription.forwardTo === null ? "subscription" : "the queue of subscription"} ${path} requires sessions: the message needs a sessionId`,
    );
  return undefined;
}

/** `Validation` for `createQueue` of a name a subscription's queue has (or its dead letters'). */
export function subscriptionQueueToCreate(name: string): QueueError | undefined {
  if (!belongsToTopic(name)) return undefined;
  return new QueueError(
    "Validation",
    `${name} names a subscription of a topic (or its dead letters): createSubscription makes it`,
  );
}

/** `Validation` for `deleteQueue` of a subscription's queue (or its dead letters'), which `deleteSubscription` removes. */
export function subscriptionQueueToDelete(name: string): QueueError {
  return new QueueError(
    "Validation",
    `${name} belongs to a subscription of a topic: deleteSubscription removes it`,
  );
}
