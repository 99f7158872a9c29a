import { randomUUID } from "node:crypto";
import { attributeOf } from "../attribute-values.js";
import type { CompiledFilter, FilterableMessage, SystemProperty } from "../filter-types.js";
import type { SqlNode, SqlValue } from "./sql-ast.js";
import { parseSql } from "./sql-parser.js";
import { sqlError } from "./sql-tokens.js";
import {
  arithmetic,
  compare,
  isEscapeCharacter,
  likePattern,
  negate,
  sqlValueOf,
  truthOf,
} from "./sql-values.js";

/** A compiled node: its value for a message (NULL for unknown). */
type Evaluator = (message: FilterableMessage) => SqlValue;

/** A message that has nothing: what constant parts of an expression are folded against. */
const NOTHING: FilterableMessage = { body: new Uint8Array(0), attributes: {} };

/** Compiles a Service Bus SQL filter; it matches a message only when the expression is TRUE. */
export function compileSqlFilter(expression: string): CompiledFilter {
  const evaluate = compile(parseSql(expression));
  return { kind: "sql", matches: (message) => truthOf(evaluate(message)) === true };
}

/** A node as a function of the message; a part that reads nothing of the message is computed once. */
function compile(node: SqlNode): Evaluator {
  const evaluate = compileNode(node);
  if (!readsMessage(node)) {
    const value = evaluate(NOTHING);
    return () => value;
  }
  return evaluate;
}

function compileNode(node: SqlNode): Evaluator {
  switch (node.type) {
    case "literal": {
      const { value } = node;
      return () => value;
    }
    case "attribute": {
      const { name } = node;
      const lower = name.toLowerCase();
      return (message) => sqlValueOf(attributeOf(message.attributes, name, lower));
    }
    case "system":
      return systemProperty(node.property);
    case "property-function": {
      const name = compile(node.name);
      return (message) => {
        const value = name(message);
        return typeof value === "string"
          ? (attributeOf(message.attributes, value, value.toLowerCase()) ?? null)
          : null;
      };
    }
    case "newid":
      return () => randomUUID();
    case "negate": {
      const operand = compile(node.operand);
      return (message) => negate(operand(message));
    }
    case "arithmetic": {
      const { operator } = node;
      const left = compile(node.left);
      const right = compile(node.right);
      return (message) => arithmetic(operator, left(message), right(message));
    }
    case "comparison": {
      const { operator } = node;
      const left = compile(node.left);
      const right = compile(node.right);
      return (message) => compare(operator, left(message), right(message));
    }
    case "and": {
      const left = compile(node.left);
      const right = compile(node.right);
      // FALSE AND anything is FALSE; otherwise TRUE only when both are TRUE; else unknown.
      return (message) => {
        const a = truthOf(left(message));
        if (a === false) return false;
        const b = truthOf(right(message));
        if (b === false) return false;
        return a === true && b === true ? true : null;
      };
    }
    case "or": {
      const left = compile(node.left);
      const right = compile(node.right);
      // TRUE OR anything is TRUE; otherwise FALSE only when both are FALSE; else unknown.
      return (message) => {
        const a = truthOf(left(message));
        if (a === true) return true;
        const b = truthOf(right(message));
        if (b === true) return true;
        return a === false && b === false ? false : null;
      };
    }
    case "not": {
      const operand = compile(node.operand);
      return (message) => {
        const value = truthOf(operand(message));
        return value === null ? null : !value;
      };
    }
    case "is-null": {
      const operand = compile(node.operand);
      const { negated } = node;
      return (message) => (operand(message) === null) !== negated;
    }
    case "in":
      return compileIn(node.operand, node.list, node.negated);
    case "like":
      return compileLike(node.operand, node.pattern, node.escape, node.negated);
    case "exists": {
      // The parser makes EXISTS take a property: present is any value, NULL is absent.
      const property = compile(node.property);
      return (message) => property(message) !== null;
    }
  }
}

/** True when a node's value depends on the message (or is new each time, as newid()'s). */
function readsMessage(node: SqlNode): boolean {
  switch (node.type) {
    case "literal":
      return false;
    case "attribute":
    case "system":
    case "property-function":
    case "newid":
    case "exists":
      return true;
    case "negate":
    case "not":
    case "is-null":
      return readsMessage(node.operand);
    case "arithmetic":
    case "comparison":
    case "and":
    case "or":
      return readsMessage(node.left) || readsMessage(node.right);
    case "in":
      return readsMessage(node.operand) || node.list.some(readsMessage);
    case "like":
      return (
        readsMessage(node.operand) ||
        readsMessage(node.pattern) ||
        (node.escape !== undefined && readsMessage(node.escape))
      );
  }
}

/** The system property `property` of a message; absent is NULL. */
function systemProperty(property: SystemProperty): Evaluator {
  return (message) => message[property] ?? null;
}

/**
 * `operand [NOT] IN (list)`: TRUE when equal to an item; unknown when the operand is NULL, or when
 * no item is equal and one compared as unknown (SQL's rule); FALSE otherwise. NOT IN negates it.
 */
function compileIn(operandNode: SqlNode, listNodes: readonly SqlNode[], negated: boolean): Evaluator {
  const operand = compile(operandNode);
  const list = listNodes.map(compile);
  // A list of string constants, the usual case, is a set: a string operand equals only an equal string.
  const strings = listNodes.every((item) => item.type === "literal" && typeof item.value === "string")
    ? new Set(listNodes.map((item) => (item.type === "literal" ? item.value : null)))
    : undefined;
  const within = (message: FilterableMessage): boolean | null => {
    const value = operand(message);
    if (value === null) return null;
    if (strings !== undefined && typeof value === "string") return strings.has(value);
    let unknown = false;
    for (const item of list) {
      const equal = compare("=", value, item(message));
      if (equal === true) return true;
      if (equal === null) unknown = true;
    }
    return unknown ? null : false;
  };
  return negated
    ? (message) => {
        const value = within(message);
        return value === null ? null : !value;
      }
    : within;
}

/**
 * `operand [NOT] LIKE pattern [ESCAPE escape]`: unknown when any of them is NULL or not a string
 * (Service Bus matches strings only), or the escape is not one character. A constant pattern is
 * compiled once, and a constant that cannot work is Validation at once.
 */
function compileLike(
  operandNode: SqlNode,
  patternNode: SqlNode,
  escapeNode: SqlNode | undefined,
  negated: boolean,
): Evaluator {
  const operand = compile(operandNode);
  const pattern = compile(patternNode);
  const escapeOf = escapeNode === undefined ? () => undefined : compile(escapeNode);
  const constant = !readsMessage(patternNode) && (escapeNode === undefined || !readsMessage(escapeNode));
  const regexpOf = (patternValue: SqlValue, escapeValue: SqlValue | undefined): RegExp | undefined => {
    if (typeof patternValue !== "string") return undefined;
    if (escapeValue === undefined) return likePattern(patternValue, undefined);
    if (typeof escapeValue !== "string" || !isEscapeCharacter(escapeValue)) return undefined;
    return likePattern(patternValue, escapeValue);
  };
  let fixed: RegExp | undefined;
  if (constant) {
    const patternValue = pattern(NOTHING);
    const escapeValue = escapeOf(NOTHING);
    // A NULL pattern or escape is unknown for every message, not a mistake.
    if (patternValue === null || escapeValue === null) return () => null;
    if (escapeValue !== undefined && (typeof escapeValue !== "string" || !isEscapeCharacter(escapeValue)))
      throw sqlError(escapeNode!.column, "the ESCAPE character must be a string of one character");
    fixed = regexpOf(patternValue, escapeValue);
    if (fixed === undefined)
      throw sqlError(
        patternNode.column,
        "the LIKE pattern must be a string not ending in its escape character",
      );
  }
  return (message) => {
    const value = operand(message);
    if (typeof value !== "string") return null;
    const regexp = fixed ?? regexpOf(pattern(message), escapeOf(message));
    if (regexp === undefined) return null;
    return regexp.test(value) !== negated;
  };
}
