import type {
  CorrelationRuleFilter,
  CreateSubscriptionOptions,
  RuleProperties,
  SqlRuleFilter,
  SubscriptionProperties,
} from "@azure/service-bus";
import { parseIsoDuration } from "../../azure/iso-duration.js";
import type { QueueOptions } from "../../core/admin.js";
import { QueueError } from "../../core/errors.js";
import type {
  CorrelationFilter,
  SubscriptionFilter,
  SubscriptionInfo,
  SubscriptionOptions,
  SubscriptionRule,
} from "../../core/topics.js";
import { subscriptionPath } from "../../core/topics.js";
import { compileFilter, filterKind, parseFilter, SYSTEM_PROPERTIES } from "../../rules/filters/index.js";
import { DEAD_LETTER_SUFFIX } from "./message-mapping.js";
import { createOptions, UNLIMITED_DELIVERIES } from "./queue-settings.js";

/** A rule's filter as the SDK takes it; a policy is `Unsupported` (Service Bus evaluates SQL and correlation filters). */
export function toSdkFilter(rule: string, filter: SubscriptionFilter): SqlRuleFilter | CorrelationRuleFilter {
  const checked = parseFilter(filter);
  const kind = filterKind(checked);
  if (kind === "policy")
    throw new QueueError(
      "Unsupported",
      `rule ${rule}: Service Bus evaluates SQL and correlation filters, not SNS filter policies`,
    );
  // Checked here so that an expression that does not parse is Validation naming the position, as on every provider.
  compileFilter(checked);
  if ("sql" in checked) return { sqlExpression: checked.sql };
  if (!("correlation" in checked)) throw new QueueError("Validation", `rule ${rule} has no filter`);
  const { attributes, ...fields } = checked.correlation;
  return { ...fields, ...(attributes === undefined ? {} : { applicationProperties: { ...attributes } }) };
}

/** A rule as the SDK describes it, in queue-runtime's terms. */
export function fromSdkRule(rule: RuleProperties): SubscriptionRule {
  const filter = rule.filter;
  if ("sqlExpression" in filter && filter.sqlExpression !== undefined)
    return { name: rule.name, filter: { sql: filter.sqlExpression } };
  const correlation = filter as CorrelationRuleFilter;
  const fields: CorrelationFilter = {};
  for (const key of SYSTEM_PROPERTIES) {
    const value = correlation[key];
    if (value !== undefined && value !== null) fields[key] = value;
  }
  const properties = correlation.applicationProperties;
  if (properties !== undefined && Object.keys(properties).length > 0) {
    const attributes: Record<string, string | number | boolean> = {};
    for (const [key, value] of Object.entries(properties))
      attributes[key] = value instanceof Date ? value.toISOString() : value;
    fields.attributes = attributes;
  }
  return { name: rule.name, filter: { correlation: fields } };
}

/**
 * A subscription's Service Bus settings from its options: a queue's (as `createQueue` maps them),
 * without duplicate detection, which Service Bus sets on the topic; the first rule is its default
 * rule, the others added after it is made.
 */
export function subscriptionOptions(options: SubscriptionOptions): CreateSubscriptionOptions {
  const { rules, forwardTo, ...queue } = options;
  if (queue.deduplicationWindowMs !== undefined && queue.deduplicationWindowMs > 0)
    throw new QueueError(
      "Unsupported",
      "Service Bus detects duplicates on a topic, not on its subscriptions: a subscription has no deduplicationWindowMs",
    );
  const { requiresDuplicateDetection, duplicateDetectionHistoryTimeWindow, ...settings } = createOptions(
    queue satisfies QueueOptions,
  );
  const first = rules?.[0];
  return {
    ...settings,
    ...(forwardTo === undefined ? {} : { forwardTo }),
    ...(first === undefined
      ? {}
      : { defaultRuleOptions: { name: first.name, filter: toSdkFilter(first.name, first.filter) } }),
  };
}

/** The queue a `forwardTo` names: Service Bus answers an absolute URL (`sb://host/orders`). */
function forwardTarget(forwardTo: string | undefined): string | null {
  if (forwardTo === undefined || forwardTo === "") return null;
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(forwardTo)
    ? decodeURIComponent(new URL(forwardTo).pathname.replace(/^\/+/, ""))
    : forwardTo;
}

/** A subscription's settings in queue-runtime's terms: the queue its path names, with its topic and forwarding. */
export function toSubscriptionInfo(subscription: SubscriptionProperties, createdAt: Date): SubscriptionInfo {
  const duration = (text: string) => parseIsoDuration(text, { code: "Provider" });
  const path = subscriptionPath(subscription.topicName, subscription.subscriptionName);
  return {
    name: path,
    fifo: subscription.requiresSession,
    lockDurationMs: duration(subscription.lockDuration) ?? 0,
    maxDeliveryCount:
      subscription.maxDeliveryCount >= UNLIMITED_DELIVERIES ? null : subscription.maxDeliveryCount,
    deadLetterQueue: `${path}${DEAD_LETTER_SUFFIX}`,
    defaultTimeToLiveMs: duration(subscription.defaultMessageTimeToLive),
    deadLetterOnExpiration: subscription.deadLetteringOnMessageExpiration,
    deduplicationWindowMs: 0,
    defaultDelayMs: 0,
    createdAt,
    topic: subscription.topicName,
    subscription: subscription.subscriptionName,
    forwardTo: forwardTarget(subscription.forwardTo),
  };
}
