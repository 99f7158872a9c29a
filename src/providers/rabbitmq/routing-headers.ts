import { createHash } from "node:crypto";
import { QueueError } from "../../core/errors.js";
import type { FilterKind, SubscriptionFilter, SubscriptionRule } from "../../core/topics.js";
import {
  type FilterableMessage,
  filterKind,
  MATCH_ALL,
  SYSTEM_PROPERTIES,
} from "../../rules/filters/index.js";

/** The filter kinds the rabbitmq provider has the broker evaluate: correlation filters, as bindings. */
export const RABBITMQ_FILTERS: readonly FilterKind[] = Object.freeze(["correlation"]);

/** Header name prefixes of the fields a binding matches: system properties, attributes, and long names hashed. */
const SYSTEM = "qr-p.";
const ATTRIBUTE = "qr-a.";
const HASHED = "qr-h.";
/** The default rule's expression, the one SQL filter a headers exchange can carry (a binding naming no header). */
const MATCH_ALL_SQL = (MATCH_ALL as { readonly sql: string }).sql;
/** An AMQP field table's key is a short string. */
const MAX_KEY_BYTES = 255;

/** The header a field is matched by; a name too long for a header key is hashed (on both sides alike). */
function headerKey(prefix: string, name: string): string {
  const key = prefix + name;
  if (Buffer.byteLength(key) <= MAX_KEY_BYTES) return key;
  return `${HASHED}${prefix}${createHash("sha256").update(name).digest("hex")}`;
}

/**
 * The headers a topic's bindings match a message by: its system properties, and its attributes by
 * lower-case name (a filter's attribute names are found ignoring case, as Service Bus's are; of two
 * attributes differing only in case, the one named in lower case is the one matched, else the first).
 */
export function routingHeaders(message: FilterableMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const property of SYSTEM_PROPERTIES) {
    const value = message[property];
    if (value !== undefined) headers[headerKey(SYSTEM, property)] = value;
  }
  for (const [name, value] of Object.entries(message.attributes)) {
    const lower = name.toLowerCase();
    const key = headerKey(ATTRIBUTE, lower);
    if (headers[key] === undefined || name === lower) headers[key] = String(value);
  }
  return headers;
}

/**
 * The arguments of the binding a rule is: `x-match: all` over the headers its correlation filter
 * names, a number or boolean as its canonical text (`5` matches an attribute `"5"`, as the shared
 * filters have it); the match-all rule (`1=1`) names none, which matches every message.
 */
export function bindingArguments(filter: SubscriptionFilter): Record<string, string> {
  const args: Record<string, string> = { "x-match": "all" };
  if (!("correlation" in filter)) return args;
  const { correlation } = filter;
  for (const property of SYSTEM_PROPERTIES) {
    const value = correlation[property];
    if (value !== undefined) args[headerKey(SYSTEM, property)] = value;
  }
  for (const [name, value] of Object.entries(correlation.attributes ?? {}))
    args[headerKey(ATTRIBUTE, name.toLowerCase())] = String(value);
  return args;
}

/**
 * Refuses a rule the broker cannot evaluate, as `Unsupported` naming it: a headers exchange
 * matches equal headers only, so SQL expressions (but the default rule's `1=1`, which matches
 * everything) and SNS filter policies are beyond it.
 */
export function requireNativeRule(rule: SubscriptionRule): void {
  const kind = filterKind(rule.filter);
  if (kind === "correlation") return;
  if ("sql" in rule.filter && rule.filter.sql.trim() === MATCH_ALL_SQL) return;
  throw new QueueError(
    "Unsupported",
    `rule ${JSON.stringify(rule.name)}: the rabbitmq provider cannot evaluate ${kind} filters (a RabbitMQ headers exchange matches equal headers only); it takes correlation filters, and ${JSON.stringify(MATCH_ALL_SQL)} for every message`,
  );
}
