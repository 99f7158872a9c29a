import { isNumberText } from "../attribute-values.js";
import type { AttributeValue } from "../filter-types.js";
import type { ArithmeticOperator, ComparisonOperator, SqlValue } from "./sql-ast.js";

const INTEGER_TEXT = /^[+-]?\d+$/;
/** Integers with more digits than this may not fit a double exactly: they are read as bigints. */
const SAFE_DIGITS = 15;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * A value as a truth value: a boolean, or a string that is `"true"` or `"false"` (the canonical
 * text of one, which is how our string attributes carry booleans); anything else is unknown.
 */
export function truthOf(value: SqlValue): boolean | null {
  if (typeof value === "boolean") return value;
  if (value === "true") return true;
  if (value === "false") return false;
  return null;
}

/** A value as a number for a comparison: numbers as they are, a string when it spells a number. */
function comparableNumber(value: SqlValue): number | bigint | undefined {
  if (typeof value === "number" || typeof value === "bigint") return value;
  if (typeof value !== "string" || !isNumberText(value)) return undefined;
  return INTEGER_TEXT.test(value) && value.length > SAFE_DIGITS ? BigInt(value) : Number(value);
}

/**
 * How `left` compares with `right`: negative, zero or positive; NaN when they differ but have no
 * order (two different booleans); undefined when the comparison is unknown (a NULL, or types that
 * do not compare). Two strings compare ordinally (by UTF-16 code unit) and case-sensitively; a
 * string and a number compare as numbers when the string spells one (our attributes are strings);
 * a boolean compares only for equality, with a boolean or its canonical text.
 */
export function compareValues(left: SqlValue, right: SqlValue): number | undefined {
  if (left === null || right === null) return undefined;
  if (typeof left === "string" && typeof right === "string") return left < right ? -1 : left > right ? 1 : 0;
  if (typeof left === "boolean" || typeof right === "boolean") {
    const a = truthOf(left);
    const b = truthOf(right);
    if (a === null || b === null) return undefined;
    return a === b ? 0 : Number.NaN;
  }
  const a = comparableNumber(left);
  const b = comparableNumber(right);
  if (a === undefined || b === undefined) return undefined;
  if (a < b) return -1;
  if (a > b) return 1;
  // Neither less nor greater: equal, unless a double is NaN (which compares with nothing).
  return (typeof a === "number" && Number.isNaN(a)) || (typeof b === "number" && Number.isNaN(b))
    ? undefined
    : 0;
}

/** The three-valued result of `left <operator> right`. */
export function compare(operator: ComparisonOperator, left: SqlValue, right: SqlValue): boolean | null {
  const order = compareValues(left, right);
  if (order === undefined) return null;
  switch (operator) {
    case "=":
      return order === 0;
    case "<>":
      return order !== 0;
    default:
      if (Number.isNaN(order)) return null;
      return operator === "<"
        ? order < 0
        : operator === ">"
          ? order > 0
          : operator === "<="
            ? order <= 0
            : order >= 0;
  }
}

/**
 * An attribute's value in SQL: absent is NULL; a typed whole number (what Service Bus's int and
 * long properties arrive as) is an Int64, any other number a double.
 */
export function sqlValueOf(value: AttributeValue | undefined): SqlValue {
  if (value === undefined) return null;
  return typeof value === "number" && Number.isSafeInteger(value) ? BigInt(value) : value;
}

/**
 * A value as an operand of arithmetic: an Int64 (bigint) or a double (number). A string counts
 * when it spells a number: an integer text is an Int64 (a double beyond its range), any other a double.
 */
function arithmeticOperand(value: SqlValue): number | bigint | undefined {
  if (typeof value === "bigint" || typeof value === "number") return value;
  if (typeof value !== "string" || !isNumberText(value)) return undefined;
  if (!INTEGER_TEXT.test(value)) return Number(value);
  const integer = BigInt(value);
  return integer < INT64_MIN || integer > INT64_MAX ? Number(value) : integer;
}

/**
 * `left <operator> right` with C#'s semantics, as Service Bus evaluates it: Int64 arithmetic
 * (wrapping on overflow, `/` truncating) when both are whole, double arithmetic otherwise;
 * an integer division or remainder by zero, and any operand that is not a number, is NULL.
 */
export function arithmetic(operator: ArithmeticOperator, left: SqlValue, right: SqlValue): SqlValue {
  const a = arithmeticOperand(left);
  const b = arithmeticOperand(right);
  if (a === undefined || b === undefined) return null;
  if (typeof a === "bigint" && typeof b === "bigint") {
    switch (operator) {
      case "+":
        return BigInt.asIntN(64, a + b);
      case "-":
        return BigInt.asIntN(64, a - b);
      case "*":
        return BigInt.asIntN(64, a * b);
      case "/":
        return b === 0n ? null : BigInt.asIntN(64, a / b);
      case "%":
        return b === 0n ? null : a % b;
    }
  }
  const x = Number(a);
  const y = Number(b);
  switch (operator) {
    case "+":
      return x + y;
    case "-":
      return x - y;
    case "*":
      return x * y;
    case "/":
      return x / y;
    case "%":
      return x % y;
  }
}

/** `-value`: Int64 negation wraps as C#'s does; a value that is not a number is NULL. */
export function negate(value: SqlValue): SqlValue {
  const operand = arithmeticOperand(value);
  if (operand === undefined) return null;
  return typeof operand === "bigint" ? BigInt.asIntN(64, -operand) : -operand;
}

/** Matches a regular-expression special character. */
const REGEXP_SPECIAL = /[\\^$.*+?()[\]{}|]/g;

/**
 * A LIKE pattern as an anchored regular expression: `%` any run of characters, `_` any one
 * character, `escapeCharacter` (one character) making the next one literal. Undefined when the pattern
 * ends in a lone escape character, which matches nothing.
 */
export function likePattern(pattern: string, escapeCharacter: string | undefined): RegExp | undefined {
  let source = "^";
  let escaped = false;
  for (const char of pattern) {
    if (escaped) {
      source += char.replace(REGEXP_SPECIAL, "\\$&");
      escaped = false;
    } else if (char === escapeCharacter) {
      escaped = true;
    } else if (char === "%") {
      source += ".*";
    } else if (char === "_") {
      source += ".";
    } else {
      source += char.replace(REGEXP_SPECIAL, "\\$&");
    }
  }
  if (escaped) return undefined;
  // `s`: `.` matches line breaks too; `u`: `_` is one character, not half of a surrogate pair.
  return new RegExp(`${source}$`, "su");
}

/** True when `escapeCharacter` is a usable ESCAPE character: exactly one character. */
export function isEscapeCharacter(escapeCharacter: string): boolean {
  return [...escapeCharacter].length === 1;
}
