import type { SystemProperty } from "../filter-types.js";

/** A value in a SQL filter: NULL (unknown), a string, an Int64 (bigint), a double (number) or a boolean. */
export type SqlValue = string | number | bigint | boolean | null;

/** The comparison operators (`!=` is read as `<>`). */
export type ComparisonOperator = "=" | "<>" | "<" | ">" | "<=" | ">=";

/** The arithmetic operators. */
export type ArithmeticOperator = "+" | "-" | "*" | "/" | "%";

/** A node of a parsed SQL filter, with the 1-based column where it starts. */
export type SqlNode = { readonly column: number } & (
  | { readonly type: "literal"; readonly value: SqlValue }
  | { readonly type: "attribute"; readonly name: string }
  | { readonly type: "system"; readonly property: SystemProperty }
  /** `property(name)` / `p(name)`: the attribute whose name the argument evaluates to. */
  | { readonly type: "property-function"; readonly name: SqlNode }
  | { readonly type: "newid" }
  | { readonly type: "negate"; readonly operand: SqlNode }
  | {
      readonly type: "arithmetic";
      readonly operator: ArithmeticOperator;
      readonly left: SqlNode;
      readonly right: SqlNode;
    }
  | {
      readonly type: "comparison";
      readonly operator: ComparisonOperator;
      readonly left: SqlNode;
      readonly right: SqlNode;
    }
  | { readonly type: "and" | "or"; readonly left: SqlNode; readonly right: SqlNode }
  | { readonly type: "not"; readonly operand: SqlNode }
  | { readonly type: "is-null"; readonly operand: SqlNode; readonly negated: boolean }
  | {
      readonly type: "in";
      readonly operand: SqlNode;
      readonly list: readonly SqlNode[];
      readonly negated: boolean;
    }
  | {
      readonly type: "like";
      readonly operand: SqlNode;
      readonly pattern: SqlNode;
      readonly escape: SqlNode | undefined;
      readonly negated: boolean;
    }
  | { readonly type: "exists"; readonly property: SqlNode }
);

/** What a node yields, as far as the text alone tells: a truth value, another value, or either. */
export type SqlNodeKind = "condition" | "value" | "either";

/** The kind of a node: a condition (comparisons, logic, IS NULL, IN, LIKE, EXISTS, TRUE/FALSE), a value, or either (names, NULL, functions). */
export function kindOf(node: SqlNode): SqlNodeKind {
  switch (node.type) {
    case "literal":
      if (typeof node.value === "boolean") return "condition";
      return node.value === null ? "either" : "value";
    case "attribute":
    case "system":
    case "property-function":
      return "either";
    case "newid":
    case "negate":
    case "arithmetic":
      return "value";
    default:
      return "condition";
  }
}
