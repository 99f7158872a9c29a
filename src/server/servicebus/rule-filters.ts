import { QueueError } from "../../core/errors.js";
import type { CorrelationFilter, SubscriptionFilter, SubscriptionRule } from "../../core/topics.js";
import { checkRule } from "../../rules/topic-records.js";

/** The system properties of a Service Bus correlation filter, by the SDK's names (`CorrelationRuleFilter`). */
export const CORRELATION_PROPERTIES = [
  "correlationId",
  "messageId",
  "to",
  "replyTo",
  "subject",
  "sessionId",
  "replyToSessionId",
  "contentType",
] as const;

/** One of {@link CORRELATION_PROPERTIES}. */
export type CorrelationProperty = (typeof CORRELATION_PROPERTIES)[number];

/** A correlation filter as Service Bus describes it: system properties and application properties. */
export interface ServiceBusCorrelation {
  readonly fields: Partial<Record<CorrelationProperty, string>>;
  readonly applicationProperties: Readonly<Record<string, unknown>>;
}

/** A rule's filter as Service Bus describes one. */
export type ServiceBusFilter =
  | { readonly kind: "sql"; readonly expression: string }
  | { readonly kind: "correlation"; readonly correlation: ServiceBusCorrelation };

/**
 * A rule from what a client sent, checked as the engine checks rules: a SQL filter that does not
 * parse fails with `Validation` naming the position. What the engine cannot apply is refused with
 * `Validation` saying so: SQL parameters, a correlation filter on `ReplyToSessionId`, a date
 * application property, and any rule action (`SET ...`): copies are made as they were published.
 */
export function serviceBusRule(
  name: string,
  filter: ServiceBusFilter,
  action: string | undefined,
  sqlParameters = false,
): SubscriptionRule {
  if (action !== undefined && action.trim() !== "")
    throw new QueueError(
      "Validation",
      `rule ${JSON.stringify(name)}: rule actions (${JSON.stringify(action)}) are not supported by this server; messages are copied to subscriptions as they were published`,
    );
  if (sqlParameters)
    throw new QueueError(
      "Validation",
      `rule ${JSON.stringify(name)}: SQL filter parameters are not supported by this server; write the values into the expression`,
    );
  return checkRule(name, engineFilter(name, filter));
}

function engineFilter(name: string, filter: ServiceBusFilter): SubscriptionFilter {
  if (filter.kind === "sql") return { sql: filter.expression };
  const { fields, applicationProperties } = filter.correlation;
  if (fields.replyToSessionId !== undefined)
    throw new QueueError(
      "Validation",
      `rule ${JSON.stringify(name)}: a correlation filter on ReplyToSessionId is not supported by this server`,
    );
  const correlation: CorrelationFilter = {};
  for (const key of CORRELATION_PROPERTIES)
    if (key !== "replyToSessionId" && fields[key] !== undefined) correlation[key] = fields[key];
  const entries = Object.entries(applicationProperties);
  if (entries.length > 0) {
    const attributes: Record<string, string | number | boolean> = {};
    for (const [key, value] of entries) {
      if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean")
        throw new QueueError(
          "Validation",
          `rule ${JSON.stringify(name)}: correlation filter property ${JSON.stringify(key)} must be a string, a number or a boolean`,
        );
      attributes[key] = value;
    }
    correlation.attributes = attributes;
  }
  return { correlation };
}

/**
 * How Service Bus describes an engine filter; `undefined` for an SNS filter policy, which
 * Service Bus has no words for (a subscription made through the SQS server's SNS endpoint).
 */
export function describeFilter(filter: SubscriptionFilter): ServiceBusFilter | undefined {
  if ("sql" in filter) return { kind: "sql", expression: filter.sql };
  if (!("correlation" in filter)) return undefined;
  const { attributes, ...fields } = filter.correlation;
  return { kind: "correlation", correlation: { fields, applicationProperties: attributes ?? {} } };
}
