import { SYSTEM_PROPERTIES, type SystemProperty } from "../filter-types.js";
import { type ArithmeticOperator, type ComparisonOperator, kindOf, type SqlNode } from "./sql-ast.js";
import {
  describeToken,
  type SqlKeyword,
  type SqlSymbol,
  type SqlToken,
  sqlError,
  tokenize,
} from "./sql-tokens.js";

/** Service Bus's limit on the length of a SQL filter ("Maximum length of filter condition string"). */
export const MAX_SQL_FILTER_LENGTH = 1024;

const INT64_MAX = 2n ** 63n - 1n;
const COMPARISONS: ReadonlySet<string> = new Set(["=", "<>", "!=", "<", ">", "<=", ">="]);
/** `sys.<name>`, any case, to the property it names (`label` is Service Bus's older name of `subject`). */
const SYSTEM_NAMES: ReadonlyMap<string, SystemProperty> = new Map([
  ...SYSTEM_PROPERTIES.map((property) => [property.toLowerCase(), property] as const),
  ["label", "subject"],
]);

const KNOWN_SYSTEM_NAMES = [...SYSTEM_PROPERTIES, "label"].map((name) => `sys.${name}`).join(", ");

/** Parses a Service Bus SQL filter expression; anything it cannot read is Validation naming the column. */
export function parseSql(text: string): SqlNode {
  if (text.length > MAX_SQL_FILTER_LENGTH)
    throw sqlError(
      MAX_SQL_FILTER_LENGTH + 1,
      `the expression is ${text.length} characters, over Service Bus's limit of ${MAX_SQL_FILTER_LENGTH},`,
    );
  const parser = new Parser(tokenize(text));
  const root = parser.condition(parser.or());
  parser.expectEnd();
  return root;
}

/** A recursive-descent parser over the tokens, lowest precedence first: OR, AND, NOT, predicates, + -, * / %, unary. */
class Parser {
  private at = 0;

  constructor(private readonly tokens: readonly SqlToken[]) {}

  or(): SqlNode {
    let left = this.and();
    while (this.keyword("OR")) {
      const right = this.condition(this.and());
      left = { type: "or", left: this.condition(left), right, column: left.column };
    }
    return left;
  }

  private and(): SqlNode {
    let left = this.not();
    while (this.keyword("AND")) {
      const right = this.condition(this.not());
      left = { type: "and", left: this.condition(left), right, column: left.column };
    }
    return left;
  }

  private not(): SqlNode {
    const start = this.peek();
    if (this.keyword("NOT"))
      return { type: "not", operand: this.condition(this.not()), column: start.column };
    return this.predicate();
  }

  private predicate(): SqlNode {
    const start = this.peek();
    if (this.keyword("EXISTS")) {
      this.expectSymbol("(", "after EXISTS");
      const property = this.property(this.next(), "a property name in EXISTS (...)");
      this.expectSymbol(")", "to close EXISTS (");
      return { type: "exists", property, column: start.column };
    }
    const left = this.additive();
    const token = this.peek();
    if (token.type === "symbol" && COMPARISONS.has(token.symbol)) {
      this.at++;
      const operator = (token.symbol === "!=" ? "<>" : token.symbol) as ComparisonOperator;
      return { type: "comparison", operator, left, right: this.additive(), column: left.column };
    }
    if (this.keyword("IS")) {
      const negated = this.keyword("NOT");
      this.expectKeyword("NULL", negated ? "after IS NOT" : "after IS");
      return { type: "is-null", operand: left, negated, column: left.column };
    }
    const negated = this.keyword("NOT");
    if (this.keyword("IN")) return this.inList(left, negated);
    if (this.keyword("LIKE")) {
      const pattern = this.value(this.additive());
      const escapeNode = this.keyword("ESCAPE") ? this.value(this.additive()) : undefined;
      return { type: "like", operand: left, pattern, escape: escapeNode, negated, column: left.column };
    }
    if (negated) throw this.expected("IN or LIKE after NOT");
    return left;
  }

  private inList(operand: SqlNode, negated: boolean): SqlNode {
    this.expectSymbol("(", "after IN");
    const list = [this.value(this.additive())];
    while (this.symbol(",")) list.push(this.value(this.additive()));
    this.expectSymbol(")", 'or "," in the IN list');
    return { type: "in", operand, list, negated, column: operand.column };
  }

  private additive(): SqlNode {
    let left = this.multiplicative();
    for (;;) {
      const operator = this.arithmetic("+", "-");
      if (operator === undefined) return left;
      const right = this.value(this.multiplicative());
      left = { type: "arithmetic", operator, left: this.value(left), right, column: left.column };
    }
  }

  private multiplicative(): SqlNode {
    let left = this.unary();
    for (;;) {
      const operator = this.arithmetic("*", "/", "%");
      if (operator === undefined) return left;
      const right = this.value(this.unary());
      left = { type: "arithmetic", operator, left: this.value(left), right, column: left.column };
    }
  }

  private unary(): SqlNode {
    const start = this.peek();
    const sign = this.arithmetic("+", "-");
    if (sign === undefined) return this.primary();
    const operand = this.peek();
    // Int64's minimum is written as minus its (otherwise too large) magnitude.
    if (sign === "-" && operand.type === "number" && typeof operand.value === "bigint") {
      this.at++;
      return { type: "literal", value: -operand.value, column: start.column };
    }
    const value = this.value(this.unary());
    return sign === "-" ? { type: "negate", operand: value, column: start.column } : value;
  }

  private primary(): SqlNode {
    const token = this.next();
    const { column } = token;
    switch (token.type) {
      case "number":
        if (typeof token.value === "bigint" && token.value > INT64_MAX)
          throw sqlError(column, `integer ${token.text} is out of the Int64 range`);
        return { type: "literal", value: token.value, column };
      case "string":
        return { type: "literal", value: token.value, column };
      case "keyword":
        if (token.keyword === "TRUE" || token.keyword === "FALSE")
          return { type: "literal", value: token.keyword === "TRUE", column };
        if (token.keyword === "NULL") return { type: "literal", value: null, column };
        break;
      case "symbol":
        if (token.symbol === "(") {
          const inner = this.or();
          this.expectSymbol(")", "to close (");
          return inner;
        }
        break;
      case "name":
        if (this.peekSymbol("(")) return this.call(token.name, column);
        return this.property(token, "a value");
      case "delimited":
        return this.property(token, "a value");
      case "end":
        break;
    }
    throw sqlError(column, `expected a value, found ${describeToken(token)}`);
  }

  /** A property: `name`, `[name]`, `"name"`, `user.<name>` or `sys.<name>`; anything else is an error expecting `what`. */
  private property(token: SqlToken, what: string): SqlNode {
    const { column } = token;
    if (token.type === "delimited") return { type: "attribute", name: token.name, column };
    if (token.type !== "name") throw sqlError(column, `expected ${what}, found ${describeToken(token)}`);
    if (!this.symbol(".")) return { type: "attribute", name: token.name, column };
    const scope = token.name.toLowerCase();
    const member = this.next();
    if (member.type !== "name" && member.type !== "delimited")
      throw sqlError(
        member.column,
        `expected a property name after "${token.name}.", found ${describeToken(member)}`,
      );
    if (scope === "user") return { type: "attribute", name: member.name, column };
    if (scope !== "sys") throw sqlError(column, `unknown scope ${token.name} (expected sys or user)`);
    const property = SYSTEM_NAMES.get(member.name.toLowerCase());
    if (property === undefined)
      throw sqlError(
        member.column,
        `unknown system property sys.${member.name} (known: ${KNOWN_SYSTEM_NAMES})`,
      );
    return { type: "system", property, column };
  }

  /** A function call: `newid()`, `property(name)` or `p(name)`. */
  private call(name: string, column: number): SqlNode {
    this.expectSymbol("(", "after a function name");
    const lower = name.toLowerCase();
    if (lower === "newid") {
      this.expectSymbol(")", "after newid(");
      return { type: "newid", column };
    }
    if (lower !== "property" && lower !== "p")
      throw sqlError(column, `unknown function ${name} (known: newid, property, p)`);
    const argument = this.value(this.additive());
    this.expectSymbol(")", `to close ${name}(`);
    return { type: "property-function", name: argument, column };
  }

  /** `node`, checked to be usable as a condition (AND, OR, NOT and the whole expression take conditions). */
  condition(node: SqlNode): SqlNode {
    if (kindOf(node) === "value") throw sqlError(node.column, "expected a condition, found a value");
    return node;
  }

  /** `node`, checked to be usable as a value (arithmetic, LIKE and IN take values). */
  private value(node: SqlNode): SqlNode {
    if (kindOf(node) === "condition") throw sqlError(node.column, "expected a value, found a condition");
    return node;
  }

  expectEnd(): void {
    const token = this.peek();
    if (token.type !== "end") throw this.expected("an operator or the end of the expression");
  }

  private peek(): SqlToken {
    return this.tokens[this.at]!;
  }

  private next(): SqlToken {
    const token = this.tokens[this.at]!;
    if (token.type !== "end") this.at++;
    return token;
  }

  private keyword(keyword: SqlKeyword): boolean {
    const token = this.peek();
    if (token.type !== "keyword" || token.keyword !== keyword) return false;
    this.at++;
    return true;
  }

  private peekSymbol(symbol: SqlSymbol): boolean {
    const token = this.peek();
    return token.type === "symbol" && token.symbol === symbol;
  }

  private symbol(symbol: SqlSymbol): boolean {
    if (!this.peekSymbol(symbol)) return false;
    this.at++;
    return true;
  }

  private arithmetic<T extends ArithmeticOperator>(...operators: T[]): T | undefined {
    const token = this.peek();
    if (token.type !== "symbol" || !(operators as string[]).includes(token.symbol)) return undefined;
    this.at++;
    return token.symbol as T;
  }

  private expectSymbol(symbol: SqlSymbol, context: string): void {
    if (!this.symbol(symbol)) throw this.expected(`"${symbol}" ${context}`);
  }

  private expectKeyword(keyword: SqlKeyword, context: string): void {
    if (!this.keyword(keyword)) throw this.expected(`${keyword} ${context}`);
  }

  private expected(what: string) {
    const token = this.peek();
    return sqlError(token.column, `expected ${what}, found ${describeToken(token)}`);
  }
}
