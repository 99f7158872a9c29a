import { QueueError } from "../../../core/errors.js";
import type { SubscriptionRule } from "../../../core/topics.js";
import {
  CORRELATION_PROPERTIES,
  type CorrelationProperty,
  describeFilter,
  type ServiceBusFilter,
  serviceBusRule,
} from "../rule-filters.js";
import { descriptionXml, isNil } from "./description-xml.js";
import { childNamed, escapeXml, type XmlElement, xmlElement, xmlText } from "./xml.js";

/** The XML names of a correlation filter's system properties (`Label` is the subject). */
const CORRELATION_ELEMENTS: Readonly<Record<CorrelationProperty, string>> = {
  correlationId: "CorrelationId",
  messageId: "MessageId",
  to: "To",
  replyTo: "ReplyTo",
  subject: "Label",
  sessionId: "SessionId",
  replyToSessionId: "ReplyToSessionId",
  contentType: "ContentType",
};

/** The XML Schema namespace typed values name their type in. */
const XML_SCHEMA_NAMESPACE = "http://www.w3.org/2001/XMLSchema";

/** The `i:type` of an element (`SqlFilter`, `l28:string`), without its prefix. */
function typeOf(element: XmlElement): string | undefined {
  for (const [name, value] of element.attributes)
    if (name.endsWith(":type")) return value.slice(value.indexOf(":") + 1);
  return undefined;
}

/**
 * A rule from a `<RuleDescription>` (or a subscription's `<DefaultRuleDescription>`): its filter
 * (SqlFilter, CorrelationFilter, TrueFilter or FalseFilter; none is `1=1`, as the SDK sends) and
 * action, checked by {@link serviceBusRule}. `name` is the rule's name from the URL, else the
 * description's `<Name>`.
 */
export function readRuleDescription(description: XmlElement, name?: string): SubscriptionRule {
  const ruleName = name ?? childNamed(description, "Name")?.text ?? "$Default";
  const filterElement = childNamed(description, "Filter");
  const filter =
    filterElement === undefined ? { kind: "sql" as const, expression: "1=1" } : filterOf(filterElement);
  const actionElement = childNamed(description, "Action");
  const action =
    actionElement === undefined || typeOf(actionElement) === "EmptyRuleAction"
      ? undefined
      : (childNamed(actionElement, "SqlExpression")?.text ?? "");
  const parameters = filterElement !== undefined && hasEntries(childNamed(filterElement, "Parameters"));
  return serviceBusRule(ruleName, filter, action, parameters);
}

function filterOf(element: XmlElement): ServiceBusFilter {
  const type = typeOf(element);
  switch (type) {
    case "TrueFilter":
      return { kind: "sql", expression: "1=1" };
    case "FalseFilter":
      return { kind: "sql", expression: "1=0" };
    case "SqlFilter":
      return { kind: "sql", expression: childNamed(element, "SqlExpression")?.text ?? "" };
    case "CorrelationFilter": {
      const fields: Partial<Record<CorrelationProperty, string>> = {};
      for (const key of CORRELATION_PROPERTIES) {
        const child = childNamed(element, CORRELATION_ELEMENTS[key]);
        if (child !== undefined && !isNil(child)) fields[key] = child.text;
      }
      return { kind: "correlation", correlation: { fields, applicationProperties: pairsOf(element) } };
    }
    default:
      throw new QueueError(
        "Validation",
        `a rule's Filter must be a SqlFilter, CorrelationFilter, TrueFilter or FalseFilter, not ${JSON.stringify(type ?? "untyped")}`,
      );
  }
}

function hasEntries(element: XmlElement | undefined): boolean {
  return element !== undefined && element.children.length > 0;
}

/** A correlation filter's `<Properties>`: `<KeyValueOfstringanyType>` pairs, typed by their value's `i:type`. */
function pairsOf(filter: XmlElement): Record<string, unknown> {
  const pairs: Record<string, unknown> = {};
  for (const pair of childNamed(filter, "Properties")?.children ?? []) {
    const key = childNamed(pair, "Key")?.text;
    const value = childNamed(pair, "Value");
    if (key === undefined || value === undefined)
      throw new QueueError("Validation", "each correlation filter property needs a Key and a Value");
    pairs[key] = typedValue(key, value);
  }
  return pairs;
}

function typedValue(key: string, value: XmlElement): unknown {
  const type = typeOf(value) ?? "string";
  switch (type) {
    case "string":
      return value.text;
    case "boolean":
      return value.text.trim() === "true";
    case "int":
    case "long":
    case "double": {
      const number = Number(value.text);
      if (!Number.isFinite(number))
        throw new QueueError(
          "Validation",
          `correlation filter property ${JSON.stringify(key)} is not a number`,
        );
      return number;
    }
    default:
      // A date (or another type) the engine's attributes cannot hold: serviceBusRule refuses it by name.
      return { type };
  }
}

/** A rule's `<Filter>` and `<Action>` as Azure writes them. */
function filterXml(filter: ServiceBusFilter): string {
  if (filter.kind === "sql")
    return xmlElement(
      "Filter",
      xmlText("SqlExpression", filter.expression) + xmlText("CompatibilityLevel", "20"),
      { "i:type": "SqlFilter" },
    );
  const { fields, applicationProperties } = filter.correlation;
  let body = "";
  for (const key of CORRELATION_PROPERTIES) {
    const value = fields[key];
    if (value !== undefined) body += xmlText(CORRELATION_ELEMENTS[key], value);
  }
  const pairs = Object.entries(applicationProperties).map(([key, value]) =>
    xmlElement("KeyValueOfstringanyType", xmlText("Key", key) + typedValueXml(value)),
  );
  return xmlElement("Filter", body + xmlElement("Properties", pairs.join("")), {
    "i:type": "CorrelationFilter",
  });
}

// The SDK reads the type after a prefix of exactly four characters and a colon, as Azure writes it.
function typedValueXml(value: unknown): string {
  const type = typeof value === "number" ? "double" : typeof value === "boolean" ? "boolean" : "string";
  return xmlElement("Value", escapeXml(String(value)), {
    "i:type": `d6p1:${type}`,
    "xmlns:d6p1": XML_SCHEMA_NAMESPACE,
  });
}

/** A `<RuleDescription>` as Azure answers it; `undefined` for a filter Service Bus cannot describe. */
export function ruleDescriptionXml(rule: SubscriptionRule, createdAt: Date): string | undefined {
  const filter = describeFilter(rule.filter);
  if (filter === undefined) return undefined;
  return descriptionXml(
    "RuleDescription",
    filterXml(filter) +
      xmlElement("Action", "", { "i:type": "EmptyRuleAction" }) +
      xmlText("CreatedAt", createdAt.toISOString()) +
      xmlText("Name", rule.name),
  );
}
