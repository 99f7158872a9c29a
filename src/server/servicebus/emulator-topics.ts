import { QueueError } from "../../core/errors.js";
import type {
  CorrelationFilter,
  SubscriptionFilter,
  SubscriptionOptions,
  SubscriptionRule,
  TopicOptions,
} from "../../core/topics.js";
import type { QueueEngine } from "../../engine/queue-engine.js";
import { checkRule } from "../../rules/topic-records.js";
import { findQueue } from "./entities.js";
import {
  describeQueue,
  engineOptions,
  type QueueProperties,
  type QueuePropertyName,
  validateServiceBusQueueName,
} from "./queue-description.js";
import { MAX_MESSAGE_BYTES } from "./servicebus-server.js";
import { SUBSCRIPTION_PROPERTY_NAMES, TOPIC_PROPERTY_NAMES } from "./topic-description.js";
import { findTopic } from "./topic-entities.js";

/** A subscription as a Config.json defines it: its name, and its queue options, rules and forwarding. */
export interface SubscriptionDefinition {
  readonly name: string;
  readonly options: SubscriptionOptions;
}

/** A topic as a Config.json defines it, with its subscriptions. */
export interface TopicDefinition {
  readonly name: string;
  readonly options: TopicOptions;
  readonly subscriptions: readonly SubscriptionDefinition[];
}

/** What {@link applyEmulatorTopics} did. */
export interface AppliedTopics {
  /** Topics that did not exist and were created. */
  readonly created: readonly string[];
  /** Subscriptions (`<topic>/<subscription>`) that did not exist and were created. */
  readonly subscribed: readonly string[];
  /** Subscriptions whose rules were made the file's. */
  readonly ruled: readonly string[];
}

type Fail = (why: string) => QueueError;

/** A topic's properties in the official file; those the engine has no use for are checked and kept nowhere. */
const TOPIC_PROPERTIES: ReadonlySet<string> = new Set([...TOPIC_PROPERTY_NAMES, "SupportOrdering"]);

/** A subscription's properties in the official file. */
const SUBSCRIPTION_PROPERTIES: ReadonlySet<string> = new Set([
  ...SUBSCRIPTION_PROPERTY_NAMES,
  "DeadLetteringOnFilterEvaluationExceptions",
]);

/** Properties a topic or subscription has that a queue has not: only their type is checked. */
const NOT_QUEUE_PROPERTIES: ReadonlySet<string> = new Set([
  "SupportOrdering",
  "DeadLetteringOnFilterEvaluationExceptions",
]);

/** A correlation filter's fields in the file, and the engine's names for them (`Label` is the subject). */
const CORRELATION_FIELDS: Readonly<Record<string, keyof Omit<CorrelationFilter, "attributes">>> = {
  CorrelationId: "correlationId",
  MessageId: "messageId",
  To: "to",
  ReplyTo: "replyTo",
  Label: "subject",
  Subject: "subject",
  ContentType: "contentType",
  SessionId: "sessionId",
};

/** One entry of `Topics`: `Name`, `Properties` and `Subscriptions` (each `Name`, `Properties`, `Rules`). */
export function topicDefinition(entry: unknown, index: number, fail: Fail): TopicDefinition {
  if (!isObject(entry))
    throw fail(`Topics[${index}] must be an object with a Name, Properties and Subscriptions`);
  const name = entry.Name;
  if (typeof name !== "string" || name === "") throw fail(`Topics[${index}] needs a Name`);
  const where = `topic ${JSON.stringify(name)}`;
  const within: Fail = (why) => fail(`${where}: ${why}`);
  checked(() => validateServiceBusQueueName(name, "Configuration"), within);
  const description = checked(() => describeQueue(propertiesOf(entry, TOPIC_PROPERTIES, within)), within);
  // The engine's topics do not deduplicate: each subscription's queue does, over the topic's window.
  const deduplicationWindowMs = description.requiresDuplicateDetection
    ? description.duplicateDetectionHistoryTimeWindowMs
    : 0;
  const subscriptions = listOf(entry.Subscriptions, "Subscriptions", within).map((one, at) =>
    subscriptionDefinition(one, at, deduplicationWindowMs, within),
  );
  const seen = new Set<string>();
  for (const subscription of subscriptions) {
    const lower = subscription.name.toLowerCase();
    if (seen.has(lower))
      throw within(`subscription ${JSON.stringify(subscription.name)} is given twice (names ignore case)`);
    seen.add(lower);
  }
  return { name, options: { defaultTimeToLiveMs: description.defaultMessageTimeToLiveMs }, subscriptions };
}

function subscriptionDefinition(
  entry: unknown,
  index: number,
  deduplicationWindowMs: number,
  fail: Fail,
): SubscriptionDefinition {
  if (!isObject(entry))
    throw fail(`Subscriptions[${index}] must be an object with a Name, Properties and Rules`);
  const name = entry.Name;
  if (typeof name !== "string" || name === "" || name.includes("/"))
    throw fail(`Subscriptions[${index}] needs a Name without '/'`);
  const within: Fail = (why) => fail(`subscription ${JSON.stringify(name)}: ${why}`);
  const description = checked(
    () => describeQueue(propertiesOf(entry, SUBSCRIPTION_PROPERTIES, within)),
    within,
  );
  const rules = listOf(entry.Rules, "Rules", within).map((rule, at) => ruleOf(rule, at, within));
  return {
    name,
    options: {
      ...engineOptions(description),
      deduplicationWindowMs,
      // No rules is Azure's `$Default`, matching every message, as the engine gives.
      ...(rules.length === 0 ? {} : { rules }),
      ...(description.forwardTo === undefined ? {} : { forwardTo: description.forwardTo }),
    },
  };
}

/** One rule: `Name` and `Properties` with `FilterType` `Sql` (`SqlFilter.SqlExpression`) or `Correlation` (`CorrelationFilter`). */
function ruleOf(entry: unknown, index: number, fail: Fail): SubscriptionRule {
  if (!isObject(entry)) throw fail(`Rules[${index}] must be an object with a Name and Properties`);
  const name = entry.Name;
  const where: Fail = (why) => fail(`rule ${JSON.stringify(name ?? index)}: ${why}`);
  const properties = entry.Properties;
  if (!isObject(properties)) throw where("needs Properties with a FilterType");
  // An Action (`SET ...`) is read past: the engine copies messages as they were published.
  const filter = filterOf(properties, where);
  return checked(() => checkRule(name, filter), where);
}

function filterOf(properties: Record<string, unknown>, fail: Fail): SubscriptionFilter {
  const type = properties.FilterType;
  if (type === "Sql") {
    const sql = isObject(properties.SqlFilter) ? properties.SqlFilter.SqlExpression : undefined;
    if (typeof sql !== "string" || sql === "") throw fail("FilterType Sql needs SqlFilter.SqlExpression");
    return { sql };
  }
  if (type === "Correlation") {
    const given = properties.CorrelationFilter;
    if (!isObject(given)) throw fail("FilterType Correlation needs a CorrelationFilter");
    return { correlation: correlationOf(given, fail) };
  }
  throw fail(`FilterType must be Sql or Correlation, not ${JSON.stringify(type)}`);
}

function correlationOf(given: Record<string, unknown>, fail: Fail): CorrelationFilter {
  const filter: CorrelationFilter = {};
  for (const [key, value] of Object.entries(given)) {
    if (key === "Properties") {
      if (!isObject(value)) throw fail("CorrelationFilter.Properties must be an object");
      const attributes: Record<string, string | number | boolean> = {};
      for (const [property, expected] of Object.entries(value)) {
        if (typeof expected !== "string" && typeof expected !== "number" && typeof expected !== "boolean")
          throw fail(`CorrelationFilter.Properties.${property} must be a string, a number or a boolean`);
        attributes[property] = expected;
      }
      filter.attributes = attributes;
      continue;
    }
    const field = CORRELATION_FIELDS[key];
    if (field === undefined)
      throw fail(
        `CorrelationFilter.${key} is not supported (supported: ${[...Object.keys(CORRELATION_FIELDS), "Properties"].join(", ")})`,
      );
    if (typeof value !== "string") throw fail(`CorrelationFilter.${key} must be a string`);
    // Empty text is left out, as the official sample's blank fields are.
    if (value !== "") filter[field] = value;
  }
  return filter;
}

/**
 * Creates the topics, subscriptions and rules the file defines, in one transaction: a missing
 * topic or subscription (found by name in any case) is created; an existing subscription keeps
 * its settings and messages and gets the file's rules. What the file does not name is left alone.
 * A subscription forwarding to a queue that does not exist is a `Configuration` error, found
 * before anything is written.
 */
export function applyEmulatorTopics(engine: QueueEngine, topics: readonly TopicDefinition[]): AppliedTopics {
  return engine.transaction(() => {
    for (const topic of topics)
      for (const subscription of topic.subscriptions) {
        const forwardTo = subscription.options.forwardTo;
        if (forwardTo !== undefined && findQueue(engine, forwardTo) === undefined)
          throw new QueueError(
            "Configuration",
            `subscription ${JSON.stringify(subscription.name)} of topic ${JSON.stringify(topic.name)} forwards to queue ${JSON.stringify(forwardTo)}, which does not exist`,
          );
      }
    const created: string[] = [];
    const subscribed: string[] = [];
    const ruled: string[] = [];
    for (const topic of topics) {
      let name = findTopic(engine, topic.name)?.name;
      if (name === undefined) {
        name = engine.topics.create(topic.name, topic.options, MAX_MESSAGE_BYTES).name;
        created.push(name);
      }
      const existing = engine.topics.withSubscriptions(name).subscriptions;
      for (const { name: subscription, options } of topic.subscriptions) {
        const lower = subscription.toLowerCase();
        const found = existing.find((one) => one.name.toLowerCase() === lower);
        if (found === undefined) {
          const forwardTo =
            options.forwardTo === undefined ? undefined : findQueue(engine, options.forwardTo)!.name;
          engine.topics.subscribe(name, subscription, {
            ...options,
            ...(forwardTo === undefined ? {} : { forwardTo }),
          });
          subscribed.push(`${name}/${subscription}`);
        } else if (replaceRules(engine, name, found.name, found.rules, options.rules)) {
          ruled.push(`${name}/${found.name}`);
        }
      }
    }
    return { created, subscribed, ruled };
  });
}

/** Makes a subscription's rules `wanted`; true when something changed. None given keeps what it has (`$Default` as made). */
function replaceRules(
  engine: QueueEngine,
  topic: string,
  subscription: string,
  current: readonly SubscriptionRule[],
  wanted: readonly SubscriptionRule[] | undefined,
): boolean {
  if (wanted === undefined) return false;
  const same = (a: SubscriptionRule, b: SubscriptionRule) =>
    a.name === b.name && JSON.stringify(a.filter) === JSON.stringify(b.filter);
  const stale = current.filter((rule) => !wanted.some((other) => same(rule, other)));
  const missing = wanted.filter((rule) => !current.some((other) => same(rule, other)));
  for (const rule of stale) engine.topics.deleteRule(topic, subscription, rule.name);
  for (const rule of missing) engine.topics.createRule(topic, subscription, rule.name, rule.filter);
  return stale.length + missing.length > 0;
}

/** The queue properties of an entry's `Properties`, each checked to be one of `known` and of a JSON scalar type. */
function propertiesOf(
  entry: Record<string, unknown>,
  known: ReadonlySet<string>,
  fail: Fail,
): QueueProperties {
  const given = entry.Properties ?? {};
  if (!isObject(given)) throw fail("Properties must be an object");
  const properties: Partial<Record<QueuePropertyName, string | number | boolean>> = {};
  for (const [key, value] of Object.entries(given)) {
    if (!known.has(key)) throw fail(`unknown property ${key} (known: ${[...known].join(", ")})`);
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean")
      throw fail(`${key} must be a string, a number or a boolean`);
    if (NOT_QUEUE_PROPERTIES.has(key)) {
      if (typeof value !== "boolean") throw fail(`${key} must be true or false`);
      continue;
    }
    properties[key as QueuePropertyName] = value;
  }
  return properties;
}

function listOf(value: unknown, name: string, fail: Fail): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw fail(`${name} must be a list`);
  return value;
}

/** What `fn` returns; a QueueError it throws becomes one of `fail`, with its message. */
function checked<T>(fn: () => T, fail: Fail): T {
  try {
    return fn();
  } catch (error) {
    if (QueueError.is(error)) throw fail(error.message);
    throw error;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
