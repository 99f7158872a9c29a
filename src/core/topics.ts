import type { QueueInfo, QueueOptions } from "./admin.js";
import { QueueError } from "./errors.js";

/** Every given field equal to the message's (attributes: each named one present and equal). */
export interface CorrelationFilter {
  correlationId?: string;
  subject?: string;
  contentType?: string;
  messageId?: string;
  sessionId?: string;
  to?: string;
  replyTo?: string;
  attributes?: Record<string, string | number | boolean>;
}

/**
 * What a subscription's rule matches: a correlation filter, a Service Bus SQL expression, or an
 * SNS filter policy on the message's attributes (the default) or its JSON body.
 */
export type SubscriptionFilter =
  | { readonly correlation: CorrelationFilter }
  | { readonly sql: string }
  | { readonly policy: string | Record<string, unknown>; readonly scope?: "attributes" | "body" };

/** The kinds of filter, as `capabilities.filters` lists the ones a provider evaluates. */
export type FilterKind = "correlation" | "sql" | "policy";

/** A named filter of a subscription: a message matching any of its rules is copied to it. */
export interface SubscriptionRule {
  readonly name: string;
  readonly filter: SubscriptionFilter;
}

/** How a topic behaves; every field has a provider default. */
export interface TopicOptions {
  /** The time to live of a published message that has none of its own; `null` forever. */
  defaultTimeToLiveMs?: number | null;
  /** The largest message body the topic accepts, in bytes. */
  maxMessageBytes?: number;
}

/** A topic and its effective options. */
export interface TopicInfo {
  readonly name: string;
  readonly defaultTimeToLiveMs: number | null;
  readonly maxMessageBytes: number;
  readonly createdAt: Date;
}

/** How a subscription behaves: a queue's options, its rules, and where its copies go instead. */
export interface SubscriptionOptions extends QueueOptions {
  /** Its rules; default one, `$Default`, matching every message. */
  rules?: SubscriptionRule[];
  /** A queue that receives this subscription's copies in its place. */
  forwardTo?: string;
}

/** A subscription: the queue its path names, with its topic, name and forwarding. */
export interface SubscriptionInfo extends QueueInfo {
  readonly topic: string;
  readonly subscription: string;
  readonly forwardTo: string | null;
}

/** A topic's counts at one moment. */
export interface TopicStats {
  /** Subscriptions it has. */
  subscriptions: number;
  /** Messages published to it since it was created. */
  published: number;
}

/** Creating and inspecting topics, their subscriptions and their subscriptions' rules. */
export interface TopicAdmin {
  /** Creates a topic; `QueueAlreadyExists` when one of that name exists. */
  createTopic(name: string, options?: TopicOptions): Promise<TopicInfo>;
  /** Deletes a topic with its subscriptions and their messages; `QueueNotFound` when there is none. */
  deleteTopic(name: string): Promise<void>;
  /** The names of all topics, sorted. */
  listTopics(prefix?: string): Promise<string[]>;
  /** A topic and its options, or `null` when it does not exist. */
  getTopic(name: string): Promise<TopicInfo | null>;
  /** A topic's subscriptions and what was published to it. */
  getTopicStats(name: string): Promise<TopicStats>;
  /** Creates a subscription of `topic`, received from at `subscriptionPath(topic, name)`. */
  createSubscription(topic: string, name: string, options?: SubscriptionOptions): Promise<SubscriptionInfo>;
  /** Deletes a subscription and its messages. */
  deleteSubscription(topic: string, name: string): Promise<void>;
  /** The names of a topic's subscriptions, sorted. */
  listSubscriptions(topic: string): Promise<string[]>;
  /** A subscription and its options, or `null` when it does not exist. */
  getSubscription(topic: string, name: string): Promise<SubscriptionInfo | null>;
  /** Adds a rule to a subscription; `QueueAlreadyExists` when it has one of that name. */
  createRule(topic: string, subscription: string, name: string, filter: SubscriptionFilter): Promise<void>;
  /** Removes a rule; with none left the subscription receives nothing. */
  deleteRule(topic: string, subscription: string, name: string): Promise<void>;
  /** A subscription's rules, sorted by name. */
  listRules(topic: string, subscription: string): Promise<SubscriptionRule[]>;
}

/** The word between a topic and its subscription in a subscription's path. */
const SUBSCRIPTIONS = "subscriptions";

/** The receivable name of a subscription: `<topic>/subscriptions/<subscription>`. */
export function subscriptionPath(topic: string, subscription: string): string {
  if (topic.length === 0 || subscription.length === 0)
    throw new QueueError("Validation", "a subscription path needs a topic and a subscription name");
  return `${topic}/${SUBSCRIPTIONS}/${subscription}`;
}

/**
 * The topic and subscription a path names (Service Bus's `<topic>/Subscriptions/<sub>` too, the
 * middle word in any case), or `undefined` when `name` is not a subscription's path.
 */
export function parseSubscriptionPath(name: string): { topic: string; subscription: string } | undefined {
  const match = /^(.+)\/subscriptions\/([^/]+)$/i.exec(name);
  if (match === null) return undefined;
  return { topic: match[1] as string, subscription: match[2] as string };
}
