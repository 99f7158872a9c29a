import rhea from "rhea";
import { QueueError } from "../../core/errors.js";
import { parseSubscriptionPath } from "../../core/topics.js";
import type { Body, ManagementContext, ManagementReply } from "./management-reply.js";
import { ok } from "./management-reply.js";
import {
  CORRELATION_PROPERTIES,
  type CorrelationProperty,
  describeFilter,
  type ServiceBusFilter,
  serviceBusRule,
} from "./rule-filters.js";

/** The descriptor codes of a rule's parts on the wire (Azure's AMQP request-response spec). */
const DESCRIPTORS = {
  ruleDescription: 0x0000_0137_0000_0004,
  sqlFilter: 0x0000_0013_7000_0006,
  correlationFilter: 0x0000_0013_7000_0009,
  emptyRuleAction: 0x0000_0137_0000_0005,
} as const;

/** The keys of a correlation filter in a rule description map, by the SDK's names. */
const CORRELATION_KEYS: Readonly<Record<CorrelationProperty, string>> = {
  correlationId: "correlation-id",
  messageId: "message-id",
  to: "to",
  replyTo: "reply-to",
  subject: "label",
  sessionId: "session-id",
  replyToSessionId: "reply-to-session-id",
  contentType: "content-type",
};

/** The subscription a `$management` node's queue is: rules are a subscription's. */
function subscriptionOf(context: ManagementContext): { topic: string; subscription: string } {
  const named = parseSubscriptionPath(context.queue.name);
  if (named === undefined)
    throw new QueueError(
      "Validation",
      `rules belong to a topic's subscriptions; ${context.queue.name} is a queue`,
    );
  return named;
}

function isBody(value: unknown): value is Body {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}

function ruleNameOf(body: Body): string {
  const name = body["rule-name"];
  if (typeof name !== "string") throw new QueueError("Validation", "the request names no rule-name");
  return name;
}

/** The filter of an add-rule's `rule-description`: a `sql-filter` or a `correlation-filter` map. */
function filterOf(description: Body): ServiceBusFilter {
  const sql = description["sql-filter"];
  if (isBody(sql)) {
    if (typeof sql.expression !== "string")
      throw new QueueError("Validation", "sql-filter needs an expression");
    return { kind: "sql", expression: sql.expression };
  }
  const correlation = description["correlation-filter"];
  if (!isBody(correlation))
    throw new QueueError("Validation", "a rule-description needs a sql-filter or a correlation-filter");
  const fields: Partial<Record<CorrelationProperty, string>> = {};
  for (const key of CORRELATION_PROPERTIES) {
    const value = correlation[CORRELATION_KEYS[key]];
    if (value === null || value === undefined) continue;
    if (typeof value !== "string")
      throw new QueueError("Validation", `correlation-filter ${CORRELATION_KEYS[key]} must be a string`);
    fields[key] = value;
  }
  const properties = correlation.properties;
  return {
    kind: "correlation",
    correlation: { fields, applicationProperties: isBody(properties) ? properties : {} },
  };
}

/** `com.microsoft:add-rule`: adds a rule, checked as the administration API checks one. */
function addRule(context: ManagementContext, body: Body): ManagementReply {
  const { topic, subscription } = subscriptionOf(context);
  const name = ruleNameOf(body);
  const description = body["rule-description"];
  if (!isBody(description)) throw new QueueError("Validation", "the request has no rule-description");
  const action = description["sql-rule-action"];
  const rule = serviceBusRule(
    name,
    filterOf(description),
    isBody(action) && typeof action.expression === "string" ? action.expression : undefined,
  );
  context.engine.topics.createRule(topic, subscription, rule.name, rule.filter);
  return ok();
}

/** `com.microsoft:remove-rule`: removes a rule; not found when there is none of that name. */
function removeRule(context: ManagementContext, body: Body): ManagementReply {
  const { topic, subscription } = subscriptionOf(context);
  context.engine.topics.deleteRule(topic, subscription, ruleNameOf(body));
  return ok();
}

/** A rule as `enumerate-rules` describes it: a described list of filter, action, name and creation time. */
function ruleDescription(name: string, filter: ServiceBusFilter, createdAt: number): unknown {
  const wire =
    filter.kind === "sql"
      ? rhea.types.wrap_described([filter.expression, 20], DESCRIPTORS.sqlFilter)
      : rhea.types.wrap_described(
          [
            ...CORRELATION_PROPERTIES.map((key) => filter.correlation.fields[key] ?? null),
            rhea.types.wrap_map(filter.correlation.applicationProperties),
          ],
          DESCRIPTORS.correlationFilter,
        );
  return rhea.types.wrap_described(
    [
      wire,
      rhea.types.wrap_described([], DESCRIPTORS.emptyRuleAction),
      name,
      rhea.types.wrap_timestamp(createdAt),
    ],
    DESCRIPTORS.ruleDescription,
  );
}

/**
 * `com.microsoft:enumerate-rules`: a page (`skip`, `top`) of the subscription's rules, sorted by
 * name; 204 when the page is empty, as Azure answers. A rule Service Bus cannot describe (an SNS
 * filter policy) is left out.
 */
function enumerateRules(context: ManagementContext, body: Body): ManagementReply {
  const { topic, subscription } = subscriptionOf(context);
  const skip = typeof body.skip === "number" && body.skip > 0 ? body.skip : 0;
  const top = typeof body.top === "number" && body.top > 0 ? body.top : Number.MAX_SAFE_INTEGER;
  const { createdAt } =
    context.engine.topics.withSubscriptions(topic).subscriptions.find((one) => one.name === subscription) ??
    {};
  const rules = context.engine.topics
    .listRules(topic, subscription)
    .flatMap((rule) => {
      const filter = describeFilter(rule.filter);
      return filter === undefined ? [] : [{ name: rule.name, filter }];
    })
    .slice(skip, skip + top);
  if (rules.length === 0) return { statusCode: 204, description: "No Content" };
  return ok({
    rules: rules.map((rule) => ({
      "rule-description": ruleDescription(rule.name, rule.filter, createdAt ?? context.engine.clock.now()),
    })),
  });
}

/** The rule operations of a subscription's `$management` node, as `ServiceBusRuleManager` sends them. */
export const RULE_OPERATIONS: Readonly<
  Record<string, (context: ManagementContext, body: Body) => ManagementReply>
> = {
  "com.microsoft:add-rule": addRule,
  "com.microsoft:remove-rule": removeRule,
  "com.microsoft:enumerate-rules": enumerateRules,
};
