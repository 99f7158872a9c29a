import { QueueError } from "../../core/errors.js";
import { isAttributeValue } from "./attribute-values.js";
import {
  type AttributeValue,
  type CorrelationFilter,
  FILTER_KINDS,
  type FilterKind,
  POLICY_SCOPES,
  type PolicyScope,
  type SubscriptionFilter,
  SYSTEM_PROPERTIES,
} from "./filter-types.js";
import { isRecord } from "./policy/policy-conditions.js";

const CORRELATION_FIELDS: ReadonlySet<string> = new Set([...SYSTEM_PROPERTIES, "attributes"]);

/** The kind of a filter: which of `correlation`, `sql` and `policy` it holds. */
export function filterKind(filter: SubscriptionFilter): FilterKind {
  if ("correlation" in filter) return "correlation";
  return "sql" in filter ? "sql" : "policy";
}

/**
 * A filter given as unknown input (JSON, a CLI, a server), checked for its shape: an object with
 * exactly one of `correlation`, `sql` or `policy` (and `scope` beside a policy). Only the shape:
 * an expression or policy is checked by `compileFilter`. Anything else is Validation naming what is wrong.
 */
export function parseFilter(input: unknown): SubscriptionFilter {
  if (!isRecord(input)) throw invalid(`a filter must be an object, not ${describe(input)}`);
  const kinds = FILTER_KINDS.filter((kind) => kind in input);
  if (kinds.length !== 1)
    throw invalid(
      kinds.length === 0
        ? `a filter needs one of ${FILTER_KINDS.join(", ")}`
        : `a filter has one of ${FILTER_KINDS.join(", ")}, not ${kinds.join(" and ")}`,
    );
  const kind = kinds[0]!;
  const allowed = kind === "policy" ? ["policy", "scope"] : [kind];
  const extra = Object.keys(input).filter((key) => !allowed.includes(key));
  if (extra.length > 0) throw invalid(`a ${kind} filter has no ${extra.join(", ")}`);
  switch (kind) {
    case "correlation":
      return { correlation: parseCorrelation(input.correlation) };
    case "sql":
      if (typeof input.sql !== "string") throw invalid(`sql must be a string, not ${describe(input.sql)}`);
      return { sql: input.sql };
    case "policy":
      return parsePolicy(input.policy, input.scope);
  }
}

function parseCorrelation(input: unknown): CorrelationFilter {
  if (!isRecord(input)) throw invalid(`correlation must be an object, not ${describe(input)}`);
  const unknown = Object.keys(input).filter((key) => !CORRELATION_FIELDS.has(key));
  if (unknown.length > 0)
    throw invalid(`correlation has no ${unknown.join(", ")} (it has ${[...CORRELATION_FIELDS].join(", ")})`);
  const filter: CorrelationFilter = {};
  for (const property of SYSTEM_PROPERTIES) {
    const value = input[property];
    if (value === undefined) continue;
    if (typeof value !== "string")
      throw invalid(`correlation.${property} must be a string, not ${describe(value)}`);
    filter[property] = value;
  }
  if (input.attributes !== undefined) filter.attributes = parseAttributes(input.attributes);
  return filter;
}

function parseAttributes(input: unknown): Record<string, AttributeValue> {
  if (!isRecord(input)) throw invalid(`correlation.attributes must be an object, not ${describe(input)}`);
  const attributes: Record<string, AttributeValue> = {};
  for (const [name, value] of Object.entries(input)) {
    if (!isAttributeValue(value) || (typeof value === "number" && !Number.isFinite(value)))
      throw invalid(
        `correlation.attributes[${JSON.stringify(name)}] must be a string, a finite number or a boolean, not ${describe(value)}`,
      );
    attributes[name] = value;
  }
  return attributes;
}

function parsePolicy(policy: unknown, scope: unknown): SubscriptionFilter {
  if (typeof policy !== "string" && !isRecord(policy))
    throw invalid(`policy must be JSON text or an object, not ${describe(policy)}`);
  if (scope === undefined) return { policy };
  if (!POLICY_SCOPES.includes(scope as PolicyScope))
    throw invalid(`scope must be ${POLICY_SCOPES.join(" or ")}, not ${describe(scope)}`);
  return { policy, scope: scope as PolicyScope };
}

/** How a value reads in an error message. */
function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? JSON.stringify(value) : typeof value;
}

function invalid(problem: string): QueueError {
  return new QueueError("Validation", `filter: ${problem}`);
}
