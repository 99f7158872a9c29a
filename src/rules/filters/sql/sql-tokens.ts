import { QueueError } from "../../../core/errors.js";

/** The words of the grammar; a plain name cannot be one (bracket it: `[in]`). */
export const SQL_KEYWORDS = [
  "AND",
  "OR",
  "NOT",
  "IN",
  "IS",
  "NULL",
  "LIKE",
  "ESCAPE",
  "EXISTS",
  "TRUE",
  "FALSE",
] as const;

/** One of {@link SQL_KEYWORDS}. */
export type SqlKeyword = (typeof SQL_KEYWORDS)[number];

/** The punctuation and operators of the grammar. */
export const SQL_SYMBOLS = [
  "<>",
  "!=",
  "<=",
  ">=",
  "=",
  "<",
  ">",
  "+",
  "-",
  "*",
  "/",
  "%",
  "(",
  ")",
  ",",
  ".",
] as const;

/** One of {@link SQL_SYMBOLS}. */
export type SqlSymbol = (typeof SQL_SYMBOLS)[number];

/** A token of a SQL filter, with the 1-based column where it starts. */
export type SqlToken = { readonly column: number } & (
  | { readonly type: "keyword"; readonly keyword: SqlKeyword }
  | { readonly type: "symbol"; readonly symbol: SqlSymbol }
  /** A regular identifier, as written. */
  | { readonly type: "name"; readonly name: string }
  /** A `[delimited]` or `"quoted"` identifier, unescaped. */
  | { readonly type: "delimited"; readonly name: string }
  | { readonly type: "string"; readonly value: string }
  /** An integer constant (Service Bus keeps it as an Int64) or a decimal or float one (a double). */
  | { readonly type: "number"; readonly value: bigint | number; readonly text: string }
  | { readonly type: "end" }
);

const KEYWORDS: ReadonlySet<string> = new Set(SQL_KEYWORDS);
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const LETTER = /\p{L}/u;
const NAME_PART = /[_\p{L}\p{Nd}]/u;
const DIGIT = /[0-9]/;
const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const SPACE = /\s/;

/** A Validation error of a SQL filter at a 1-based column. */
export function sqlError(column: number, problem: string): QueueError {
  return new QueueError("Validation", `SQL filter: ${problem} at column ${column}`);
}

/** How a token reads in an error message. */
export function describeToken(token: SqlToken): string {
  switch (token.type) {
    case "keyword":
      return token.keyword;
    case "symbol":
      return `"${token.symbol}"`;
    case "name":
      return `name ${token.name}`;
    case "delimited":
      return `name [${token.name}]`;
    case "string":
      return `string '${token.value}'`;
    case "number":
      return `number ${token.text}`;
    case "end":
      return "the end of the expression";
  }
}

/** The tokens of `text`, ending with an `end` token; an unreadable character or unclosed quote is Validation. */
export function tokenize(text: string): SqlToken[] {
  const tokens: SqlToken[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text[at]!;
    const column = at + 1;
    if (SPACE.test(char)) {
      at++;
    } else if (char === "'") {
      const [value, next] = quoted(text, at, "'", "string");
      tokens.push({ type: "string", value, column });
      at = next;
    } else if (char === "[") {
      const [name, next] = quoted(text, at, "]", "name");
      tokens.push({ type: "delimited", name, column });
      at = next;
    } else if (char === '"') {
      const [name, next] = quoted(text, at, '"', "name");
      tokens.push({ type: "delimited", name, column });
      at = next;
    } else if (DIGIT.test(char) || (char === "." && DIGIT.test(text[at + 1] ?? ""))) {
      NUMBER.lastIndex = at;
      const literal = NUMBER.exec(text)![0];
      tokens.push(numberToken(literal, column));
      at += literal.length;
    } else if (LETTER.test(char)) {
      let end = at + 1;
      while (end < text.length && NAME_PART.test(text[end]!)) end++;
      const word = text.slice(at, end);
      const upper = word.toUpperCase();
      tokens.push(
        KEYWORDS.has(upper)
          ? { type: "keyword", keyword: upper as SqlKeyword, column }
          : { type: "name", name: word, column },
      );
      at = end;
    } else {
      const symbol = SQL_SYMBOLS.find((candidate) => text.startsWith(candidate, at));
      if (symbol === undefined) throw sqlError(column, `unexpected character ${JSON.stringify(char)}`);
      tokens.push({ type: "symbol", symbol, column });
      at += symbol.length;
    }
  }
  tokens.push({ type: "end", column: text.length + 1 });
  return tokens;
}

/** The text between the quote at `start` and its closing `close` (doubled to escape it), and the index after it. */
function quoted(text: string, start: number, close: string, what: string): [string, number] {
  let value = "";
  let at = start + 1;
  for (;;) {
    const end = text.indexOf(close, at);
    if (end < 0) throw sqlError(start + 1, `unterminated ${what} (no closing ${close})`);
    value += text.slice(at, end);
    if (text[end + 1] !== close) return [value, end + 1];
    value += close;
    at = end + 2;
  }
}

/** A number token: an Int64 for digits alone (out of its range is Validation), else a double. */
function numberToken(literal: string, column: number): SqlToken {
  if (/^\d+$/.test(literal)) {
    const value = BigInt(literal);
    // A minus sign is an operator here, so the literal of Int64's minimum is one more than its maximum.
    if (value > INT64_MAX + 1n || value < INT64_MIN)
      throw sqlError(column, `integer ${literal} is out of the Int64 range`);
    return { type: "number", value, text: literal, column };
  }
  return { type: "number", value: Number(literal), text: literal, column };
}
