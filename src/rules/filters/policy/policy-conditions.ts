import { QueueError } from "../../../core/errors.js";
import { numberFromText } from "../attribute-values.js";

/** A value a filter policy tests: a leaf of the body's JSON, or one element of an attribute. */
export type PolicyValue = string | number | boolean | null;

/**
 * Tests one value. `textNumbers` is true in attribute scope, where a string that spells a number
 * stands for SNS's `Number` attribute (our attributes are strings) and `"true"` for true.
 */
export type ValueCondition = (value: PolicyValue, textNumbers: boolean) => boolean;

/** The conditions of one key: the value tests, and what `exists` says of a present or absent key. */
export interface LeafConditions {
  readonly tests: readonly ValueCondition[];
  /** `{"exists": true}` is among them. */
  readonly matchesPresent: boolean;
  /** `{"exists": false}` is among them. */
  readonly matchesAbsent: boolean;
}

/** The operators of a condition object, as SNS names them. */
export const POLICY_OPERATORS = [
  "prefix",
  "suffix",
  "anything-but",
  "numeric",
  "exists",
  "equals-ignore-case",
] as const;

/** SNS's range of numbers in a policy: -10^9 to 10^9. */
export const POLICY_NUMBER_LIMIT = 1_000_000_000;
/** SNS compares numbers to five digits after the decimal point. */
const PRECISION = 100_000;

const RANGE_OPERATORS = ["=", "<", "<=", ">", ">="] as const;
type RangeOperator = (typeof RANGE_OPERATORS)[number];

/** A Validation error of a filter policy, at key `key`. */
export function policyError(key: string, problem: string): QueueError {
  return new QueueError("Validation", `filter policy: key ${JSON.stringify(key)}: ${problem}`);
}

/** Compiles the condition array of one key, checking each condition. */
export function compileLeaf(key: string, conditions: readonly unknown[]): LeafConditions {
  if (conditions.length === 0) throw policyError(key, "the array of conditions is empty");
  const tests: ValueCondition[] = [];
  let matchesPresent = false;
  let matchesAbsent = false;
  for (const condition of conditions) {
    if (isRecord(condition) && Object.keys(condition).length === 1 && "exists" in condition) {
      if (typeof condition.exists !== "boolean") throw policyError(key, "exists must be true or false");
      if (condition.exists) matchesPresent = true;
      else matchesAbsent = true;
    } else {
      tests.push(compileCondition(key, condition));
    }
  }
  return { tests, matchesPresent, matchesAbsent };
}

/** A number of a value, rounded to SNS's precision; undefined when it has none or is out of SNS's range. */
function fixedNumberOf(value: PolicyValue, textNumbers: boolean): number | undefined {
  const number =
    typeof value === "number"
      ? value
      : textNumbers && typeof value === "string"
        ? numberFromText(value)
        : undefined;
  if (number === undefined || !(Math.abs(number) <= POLICY_NUMBER_LIMIT)) return undefined;
  return Math.round(number * PRECISION);
}

function compileCondition(key: string, condition: unknown): ValueCondition {
  if (typeof condition === "string") return (value) => value === condition;
  if (typeof condition === "number") {
    const expected = fixedNumber(key, condition);
    return (value, textNumbers) => fixedNumberOf(value, textNumbers) === expected;
  }
  if (typeof condition === "boolean") {
    const text = String(condition);
    return (value, textNumbers) => value === condition || (textNumbers && value === text);
  }
  if (condition === null) return (value) => value === null;
  if (!isRecord(condition))
    throw policyError(key, "a condition must be a string, a number, true, false, null or an operator object");
  const entries = Object.entries(condition);
  if (entries.length !== 1)
    throw policyError(key, `an operator object has exactly one operator, not ${entries.length}`);
  const [operator, operand] = entries[0]!;
  switch (operator) {
    case "prefix": {
      const prefix = stringOperand(key, operator, operand);
      return (value) => typeof value === "string" && value.startsWith(prefix);
    }
    case "suffix": {
      const suffix = stringOperand(key, operator, operand);
      return (value) => typeof value === "string" && value.endsWith(suffix);
    }
    case "equals-ignore-case": {
      const lower = stringOperand(key, operator, operand).toLowerCase();
      return (value) => typeof value === "string" && value.toLowerCase() === lower;
    }
    case "anything-but":
      return anythingBut(key, operand);
    case "numeric":
      return numericRange(key, operand);
    default:
      throw policyError(
        key,
        `unrecognized operator ${JSON.stringify(operator)} (supported: ${POLICY_OPERATORS.join(", ")})`,
      );
  }
}

/**
 * `anything-but`: a value, a list of strings or of numbers, or `{prefix}` / `{suffix}`. Matches a
 * value that is none of them (a value of another type is none of them); with `prefix` or `suffix`,
 * a string that does not start or end so.
 */
function anythingBut(key: string, operand: unknown): ValueCondition {
  if (isRecord(operand)) {
    const entries = Object.entries(operand);
    const [operator, text] = entries[0] ?? [];
    if (entries.length !== 1 || (operator !== "prefix" && operator !== "suffix"))
      throw policyError(key, 'anything-but takes a value, a list, {"prefix": ...} or {"suffix": ...}');
    const affix = stringOperand(key, `anything-but ${operator}`, text);
    return operator === "prefix"
      ? (value) => typeof value === "string" && !value.startsWith(affix)
      : (value) => typeof value === "string" && !value.endsWith(affix);
  }
  const list = Array.isArray(operand) ? operand : [operand];
  if (list.length === 0) throw policyError(key, "anything-but has an empty list");
  if (list.every((item) => typeof item === "string")) {
    const strings = new Set<unknown>(list);
    return (value) => !strings.has(value);
  }
  if (list.every((item) => typeof item === "number")) {
    const numbers = new Set(list.map((item) => fixedNumber(key, item)));
    return (value, textNumbers) => {
      const number = fixedNumberOf(value, textNumbers);
      return number === undefined || !numbers.has(number);
    };
  }
  throw policyError(key, "anything-but takes strings or numbers, not a mix or other values");
}

/**
 * `numeric`: `["=", n]`, or one bound (`<`, `<=`, `>`, `>=`), or a lower bound then an upper one
 * (`[">", 0, "<=", 150]`) with the lower below the upper. Matches a number in the range.
 */
function numericRange(key: string, operand: unknown): ValueCondition {
  if (!Array.isArray(operand) || (operand.length !== 2 && operand.length !== 4))
    throw policyError(key, 'numeric takes ["<op>", number] or [">" or ">=", number, "<" or "<=", number]');
  const bounds: [RangeOperator, number][] = [];
  for (let at = 0; at < operand.length; at += 2) {
    const operator = operand[at] as unknown;
    if (!RANGE_OPERATORS.includes(operator as RangeOperator))
      throw policyError(
        key,
        `numeric: unrecognized operator ${JSON.stringify(operator)} (use ${RANGE_OPERATORS.join(" ")})`,
      );
    const bound = operand[at + 1] as unknown;
    if (typeof bound !== "number")
      throw policyError(key, `numeric: the value of ${operator} must be a number`);
    bounds.push([operator as RangeOperator, fixedNumber(key, bound)]);
  }
  const [lower, upper] = bounds;
  if (upper !== undefined) {
    if (lower![0] !== ">" && lower![0] !== ">=")
      throw policyError(key, "numeric: a range starts with > or >=");
    if (upper[0] !== "<" && upper[0] !== "<=") throw policyError(key, "numeric: a range ends with < or <=");
    if (upper[1] <= lower![1]) throw policyError(key, "numeric: the lower bound must be below the upper one");
  }
  return (value, textNumbers) => {
    const number = fixedNumberOf(value, textNumbers);
    return number !== undefined && bounds.every(([operator, bound]) => within(operator, number, bound));
  };
}

function within(operator: RangeOperator, number: number, bound: number): boolean {
  switch (operator) {
    case "=":
      return number === bound;
    case "<":
      return number < bound;
    case "<=":
      return number <= bound;
    case ">":
      return number > bound;
    case ">=":
      return number >= bound;
  }
}

/** A number of the policy, checked against SNS's range and rounded to its precision. */
function fixedNumber(key: string, number: number): number {
  if (!(Math.abs(number) <= POLICY_NUMBER_LIMIT))
    throw policyError(key, `the number ${number} is outside SNS's range of -1e9 to 1e9`);
  return Math.round(number * PRECISION);
}

function stringOperand(key: string, operator: string, operand: unknown): string {
  if (typeof operand !== "string") throw policyError(key, `${operator} takes a string`);
  return operand;
}

/** True for a plain JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
