import { QueueError } from "../../../core/errors.js";
import { isAttributeValue } from "../attribute-values.js";
import type { AttributeValue, CompiledFilter, FilterableMessage, PolicyScope } from "../filter-types.js";
import {
  compileLeaf,
  isRecord,
  type LeafConditions,
  type PolicyValue,
  policyError,
} from "./policy-conditions.js";

/** SNS's limits on a filter policy, checked when it is compiled. */
export const POLICY_LIMITS = {
  /** The policy's JSON, in bytes of UTF-8. */
  maxBytes: 256 * 1024,
  /** Keys at the top level (in body scope nested keys do not count; each `$or` branch adds its own). */
  maxKeys: 5,
  /** The product over the value arrays of their length times their nesting depth, a `$or` adding its branches'. */
  maxCombinations: 150,
} as const;

const OR = "$or";

/** One level of a policy: its keys with conditions, its nested keys (body scope), and a `$or`. */
interface PolicyObject {
  readonly leaves: readonly { readonly key: string; readonly conditions: LeafConditions }[];
  readonly nested: readonly { readonly key: string; readonly object: PolicyObject }[];
  readonly alternatives: readonly PolicyObject[] | undefined;
}

/** What compiling one level found, for the limits. */
interface Compiled {
  readonly object: PolicyObject;
  readonly keys: number;
  readonly combinations: number;
}

/**
 * Compiles an SNS filter policy (JSON text or its object) for `scope`. A message matches when every
 * key matches: a key matches when a value under it matches one of its conditions (an array value
 * matches when an element does), or when it is absent and `{"exists": false}` is among them; a
 * `$or` matches when one of its branches does. Anything SNS refuses, its limits included, is Validation.
 */
export function compilePolicyFilter(
  policy: string | Record<string, unknown>,
  scope: PolicyScope,
): CompiledFilter {
  const text = typeof policy === "string" ? policy : JSON.stringify(policy);
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > POLICY_LIMITS.maxBytes)
    throw new QueueError(
      "Validation",
      `filter policy: ${bytes} bytes, over SNS's limit of ${POLICY_LIMITS.maxBytes} (256 KB)`,
    );
  const parsed = typeof policy === "string" ? parseJson(policy) : policy;
  if (!isRecord(parsed)) throw new QueueError("Validation", "filter policy: must be a JSON object");
  const { object, keys, combinations } = compileObject(parsed, scope, 1, true);
  if (keys > POLICY_LIMITS.maxKeys)
    throw new QueueError(
      "Validation",
      `filter policy: ${keys} keys, over SNS's limit of ${POLICY_LIMITS.maxKeys}`,
    );
  if (combinations > POLICY_LIMITS.maxCombinations)
    throw new QueueError(
      "Validation",
      `filter policy: ${combinations} combinations of values, over SNS's limit of ${POLICY_LIMITS.maxCombinations}`,
    );
  const matches =
    scope === "attributes"
      ? (message: FilterableMessage) => matchAttributes(object, message.attributes)
      : (message: FilterableMessage) => {
          const body = bodyOf(message.body);
          return isRecord(body) && matchBody(object, body);
        };
  return { kind: "policy", matches };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new QueueError("Validation", `filter policy: not JSON (${(error as Error).message})`);
  }
}

function compileObject(
  raw: Record<string, unknown>,
  scope: PolicyScope,
  depth: number,
  top: boolean,
): Compiled {
  const leaves: { key: string; conditions: LeafConditions }[] = [];
  const nested: { key: string; object: PolicyObject }[] = [];
  let alternatives: PolicyObject[] | undefined;
  let keys = 0;
  let branchKeys = 0;
  let combinations = 1;
  for (const [key, value] of Object.entries(raw)) {
    if (key === OR) {
      if (!Array.isArray(value) || value.length < 2 || !value.every((branch) => isRecord(branch)))
        throw policyError(key, "$or takes an array of at least two policy objects");
      const branches = value.map((branch) => compileObject(branch, scope, depth, false));
      alternatives = branches.map((branch) => branch.object);
      branchKeys = Math.max(...branches.map((branch) => branch.keys));
      combinations *= branches.reduce((sum, branch) => sum + branch.combinations, 0);
    } else if (Array.isArray(value)) {
      leaves.push({ key, conditions: compileLeaf(key, value) });
      keys++;
      combinations *= value.length * depth;
    } else if (isRecord(value) && scope === "body") {
      const inner = compileObject(value, scope, depth + 1, false);
      nested.push({ key, object: inner.object });
      keys++;
      combinations *= inner.combinations;
    } else if (isRecord(value)) {
      throw policyError(key, "an attribute-scoped policy cannot nest keys (only body-scoped ones can)");
    } else {
      throw policyError(key, "must be an array of conditions (or, in body scope, an object of nested keys)");
    }
  }
  if (keys === 0 && alternatives === undefined && !top)
    throw policyError("", "a nested object or $or branch is empty");
  return { object: { leaves, nested, alternatives }, keys: keys + branchKeys, combinations };
}

/** Whether the key's values (none when absent) pass its conditions. */
function matchLeaf(
  conditions: LeafConditions,
  values: readonly PolicyValue[],
  textNumbers: boolean,
): boolean {
  if (values.length === 0) return conditions.matchesAbsent;
  if (conditions.matchesPresent) return true;
  return values.some((value) => conditions.tests.some((test) => test(value, textNumbers)));
}

function matchAttributes(
  object: PolicyObject,
  attributes: Readonly<Record<string, AttributeValue>>,
): boolean {
  for (const { key, conditions } of object.leaves)
    if (!matchLeaf(conditions, attributeValues(attributes[key]), true)) return false;
  return (
    object.alternatives === undefined ||
    object.alternatives.some((branch) => matchAttributes(branch, attributes))
  );
}

/**
 * The values of an attribute: none when absent; the elements of a JSON array text (SNS's
 * `String.Array`, which our string attributes carry as its JSON); else the value itself.
 */
function attributeValues(value: AttributeValue | undefined): readonly PolicyValue[] {
  if (!isAttributeValue(value)) return [];
  if (typeof value !== "string" || value[0] !== "[") return [value];
  try {
    const parsed: unknown = JSON.parse(value);
    return Array.isArray(parsed) ? leavesOf(parsed) : [value];
  } catch {
    return [value];
  }
}

function matchBody(object: PolicyObject, record: Record<string, unknown> | undefined): boolean {
  for (const { key, conditions } of object.leaves)
    if (!matchLeaf(conditions, leavesOf(record?.[key]), false)) return false;
  for (const { key, object: inner } of object.nested) if (!matchNested(inner, record?.[key])) return false;
  return object.alternatives === undefined || object.alternatives.some((branch) => matchBody(branch, record));
}

/** A nested object matches the value under its key: an object, or (for an array) one of its elements. */
function matchNested(object: PolicyObject, value: unknown): boolean {
  if (Array.isArray(value) && value.length > 0) return value.some((element) => matchNested(object, element));
  return matchBody(object, isRecord(value) ? value : undefined);
}

/** The leaf values under a key of the body: a scalar, or the scalars of an array (nested arrays flattened). */
function leavesOf(value: unknown): readonly PolicyValue[] {
  if (value === undefined || isRecord(value)) return [];
  if (!Array.isArray(value)) return [value as PolicyValue];
  const leaves: PolicyValue[] = [];
  for (const element of value) leaves.push(...leavesOf(element));
  return leaves;
}

/** Bodies already parsed: each rule of a publish reads the same body, which is parsed once. */
const parsedBodies = new WeakMap<Uint8Array, unknown>();
const NOT_JSON = Symbol("not JSON");
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The body parsed as JSON, or NOT_JSON when it is not UTF-8 JSON. */
function bodyOf(body: Uint8Array): unknown {
  if (parsedBodies.has(body)) return parsedBodies.get(body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(utf8.decode(body));
  } catch {
    parsed = NOT_JSON;
  }
  parsedBodies.set(body, parsed);
  return parsed;
}
