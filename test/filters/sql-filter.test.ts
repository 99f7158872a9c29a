import { describe, expect, test } from "vitest";
import { compileFilter, MATCH_ALL, MAX_SQL_FILTER_LENGTH } from "../../src/rules/filters/index.js";
import { EVERY_PROPERTY, message, sql, truth, validationOf } from "./support.js";

/** Conditions that are TRUE, FALSE and UNKNOWN on a message without attribute `missing`. */
const VALUES = { T: "1 = 1", F: "1 = 0", U: "missing = 1" } as const;
type Truth = keyof typeof VALUES;
const TRUTHS = ["T", "F", "U"] as const;

describe("SQL filters: three-valued logic as Service Bus documents it", () => {
  const and: Record<`${Truth}${Truth}`, Truth> = {
    TT: "T",
    TF: "F",
    TU: "U",
    FT: "F",
    FF: "F",
    FU: "F",
    UT: "U",
    UF: "F",
    UU: "U",
  };
  const or: Record<`${Truth}${Truth}`, Truth> = {
    TT: "T",
    TF: "T",
    TU: "T",
    FT: "T",
    FF: "F",
    FU: "U",
    UT: "T",
    UF: "U",
    UU: "U",
  };
  for (const a of TRUTHS)
    for (const b of TRUTHS) {
      test(`${a} AND ${b} is ${and[`${a}${b}`]}`, () => {
        expect(truth(`(${VALUES[a]}) AND (${VALUES[b]})`)).toBe(and[`${a}${b}`]);
      });
      test(`${a} OR ${b} is ${or[`${a}${b}`]}`, () => {
        expect(truth(`(${VALUES[a]}) OR (${VALUES[b]})`)).toBe(or[`${a}${b}`]);
      });
    }

  test("NOT TRUE is FALSE, NOT FALSE is TRUE, NOT UNKNOWN is UNKNOWN", () => {
    expect(truth(`NOT (${VALUES.T})`)).toBe("F");
    expect(truth(`NOT (${VALUES.F})`)).toBe("T");
    expect(truth(`NOT (${VALUES.U})`)).toBe("U");
    expect(truth(`NOT NOT (${VALUES.U})`)).toBe("U");
  });

  test("a rule matches only when the expression is TRUE: FALSE and UNKNOWN both do not", () => {
    expect(sql(VALUES.T)).toBe(true);
    expect(sql(VALUES.F)).toBe(false);
    expect(sql(VALUES.U)).toBe(false);
  });

  test("every comparison with a missing attribute or NULL is UNKNOWN, = and <> alike", () => {
    for (const operator of ["=", "<>", "!=", "<", ">", "<=", ">="]) {
      expect(truth(`missing ${operator} 1`)).toBe("U");
      expect(truth(`1 ${operator} missing`)).toBe("U");
      expect(truth(`a ${operator} NULL`, { a: "1" })).toBe("U");
      expect(truth(`NULL ${operator} NULL`)).toBe("U");
    }
  });

  test("arithmetic with UNKNOWN is UNKNOWN, and so is a comparison of it", () => {
    expect(truth("missing + 1 = 1")).toBe("U");
    expect(truth("-missing = 1")).toBe("U");
    expect(truth("missing * 0 = 0")).toBe("U");
  });

  test("IS NULL and EXISTS are never UNKNOWN: a missing attribute IS NULL and does not EXIST", () => {
    expect(truth("missing IS NULL")).toBe("T");
    expect(truth("missing IS NOT NULL")).toBe("F");
    expect(truth("EXISTS(missing)")).toBe("F");
    expect(truth("a IS NULL", { a: "" })).toBe("F");
    expect(truth("a IS NOT NULL", { a: "" })).toBe("T");
    expect(truth("EXISTS (a)", { a: "" })).toBe("T");
    expect(truth("EXISTS(sys.correlationId)")).toBe("F");
    expect(sql("EXISTS(sys.correlationId)", {}, { correlationId: "c" })).toBe(true);
    expect(truth("sys.sessionId IS NULL")).toBe("T");
  });

  test("IN: UNKNOWN for a NULL operand; UNKNOWN when nothing equals and an item is NULL; NOT IN negates", () => {
    expect(truth("missing IN ('a', 'b')")).toBe("U");
    expect(truth("missing NOT IN ('a', 'b')")).toBe("U");
    expect(truth("a IN ('x', 'y')", { a: "y" })).toBe("T");
    expect(truth("a IN ('x', 'y')", { a: "z" })).toBe("F");
    expect(truth("a NOT IN ('x', 'y')", { a: "z" })).toBe("T");
    expect(truth("a IN ('x', NULL)", { a: "x" })).toBe("T");
    expect(truth("a IN ('x', NULL)", { a: "z" })).toBe("U");
    expect(truth("a NOT IN ('x', NULL)", { a: "z" })).toBe("U");
    expect(truth("a IN (1, 2, 3)", { a: "2" })).toBe("T");
    expect(truth("a IN (b, 'q')", { a: "v", b: "v" })).toBe("T");
  });

  test("LIKE: UNKNOWN when the operand, pattern or escape is NULL", () => {
    expect(truth("missing LIKE 'a%'")).toBe("U");
    expect(truth("missing NOT LIKE 'a%'")).toBe("U");
    expect(truth("a LIKE missing", { a: "x" })).toBe("U");
    expect(truth("a LIKE NULL", { a: "x" })).toBe("U");
    expect(truth("a LIKE '%' ESCAPE missing", { a: "x" })).toBe("U");
  });
});

describe("SQL filters: operators", () => {
  test("comparisons of strings are case-sensitive and ordinal", () => {
    expect(sql("region = 'eu'", { region: "eu" })).toBe(true);
    expect(sql("region = 'eu'", { region: "EU" })).toBe(false);
    expect(sql("region <> 'eu'", { region: "us" })).toBe(true);
    expect(sql("region != 'eu'", { region: "eu" })).toBe(false);
    expect(sql("region < 'f'", { region: "eu" })).toBe(true);
    expect(sql("region > 'f'", { region: "eu" })).toBe(false);
    expect(sql("region <= 'eu'", { region: "eu" })).toBe(true);
    expect(sql("region >= 'ev'", { region: "eu" })).toBe(false);
    expect(sql("a = 'it''s'", { a: "it's" })).toBe(true);
  });

  test("a string attribute that spells a number compares with a number as a number", () => {
    expect(sql("amount > 100", { amount: "250" })).toBe(true);
    expect(sql("amount > 100", { amount: "99.5" })).toBe(false);
    expect(sql("amount = 5", { amount: "5.0" })).toBe(true);
    expect(sql("amount = 5", { amount: "5e0" })).toBe(true);
    expect(sql("amount >= 1.5", { amount: "2" })).toBe(true);
    expect(sql("amount = 9223372036854775807", { amount: "9223372036854775807" })).toBe(true);
    expect(sql("amount < 9223372036854775807", { amount: "9223372036854775806" })).toBe(true);
    // A string that spells no number does not compare with one: UNKNOWN, not FALSE.
    expect(truth("amount = 5", { amount: "five" })).toBe("U");
    expect(truth("amount <> 5", { amount: " 5" })).toBe("U");
    expect(truth("amount = 5", { amount: "0x5" })).toBe("U");
    // Two strings compare as strings, even when both spell numbers.
    expect(sql("amount = '5'", { amount: "5.0" })).toBe(false);
    expect(sql("a > b", { a: "10", b: "9" })).toBe(false);
  });

  test("typed attributes (as Service Bus carries them) compare by value, and with their canonical text", () => {
    expect(sql("n = 5 AND d = 2.5 AND f = TRUE", { n: 5, d: 2.5, f: true })).toBe(true);
    expect(sql("n = '5'", { n: 5 })).toBe(true);
    expect(sql("n > 4.5", { n: 5 })).toBe(true);
    expect(sql("n / 2 = 2", { n: 5 })).toBe(true);
    expect(sql("d / 2 = 1.25", { d: 2.5 })).toBe(true);
  });

  test("booleans: TRUE and FALSE, equal to the text true/false, with no order", () => {
    expect(sql("TRUE")).toBe(true);
    expect(sql("FALSE")).toBe(false);
    expect(truth("NOT FALSE")).toBe("T");
    expect(sql("flag = TRUE", { flag: "true" })).toBe(true);
    expect(sql("flag = true", { flag: "false" })).toBe(false);
    expect(sql("flag <> FALSE", { flag: "true" })).toBe(true);
    expect(truth("flag = TRUE", { flag: "yes" })).toBe("U");
    expect(truth("flag < TRUE", { flag: "false" })).toBe("U");
    expect(truth("flag", { flag: "true" })).toBe("T");
    expect(truth("flag", { flag: "false" })).toBe("F");
    expect(truth("flag", { flag: "1" })).toBe("U");
  });

  test("arithmetic: Int64 for whole numbers (division truncates), doubles otherwise, unary minus, precedence", () => {
    expect(sql("7 / 2 = 3")).toBe(true);
    expect(sql("-7 / 2 = -3")).toBe(true);
    expect(sql("7 % 3 = 1 AND -7 % 3 = -1")).toBe(true);
    expect(sql("7.0 / 2 = 3.5")).toBe(true);
    expect(sql("1.5E1 = 15 AND 0.5E-1 = .05")).toBe(true);
    expect(sql("2 + 3 * 4 = 14 AND (2 + 3) * 4 = 20 AND 10 - 2 - 3 = 5")).toBe(true);
    expect(sql("- -3 = 3 AND +3 = 3 AND -(1 + 2) = -3")).toBe(true);
    expect(sql("amount * 2 > 300", { amount: "200" })).toBe(true);
    expect(sql("amount + 0.5 = 10.5", { amount: "10" })).toBe(true);
    expect(sql("9223372036854775807 + 1 = -9223372036854775808")).toBe(true);
    expect(sql("-9223372036854775808 < 0")).toBe(true);
    // An integer division by zero is an error on Service Bus: here UNKNOWN; a double's is infinite.
    expect(truth("1 / 0 = 0")).toBe("U");
    expect(truth("1 % 0 = 0")).toBe("U");
    expect(sql("1.0 / 0 > 1000000")).toBe(true);
    expect(truth("a + 1 = 2", { a: "one" })).toBe("U");
    expect(truth("'a' + 'b' = 'ab'")).toBe("U");
  });

  test("constant expressions: 1=1 matches everything, and MATCH_ALL is it", () => {
    expect(MATCH_ALL).toEqual({ sql: "1=1" });
    expect(compileFilter(MATCH_ALL).matches(message())).toBe(true);
    expect(sql("1 <> 1")).toBe(false);
    expect(sql("'a' = 'a'")).toBe(true);
  });

  test("LIKE: % any run, _ one character, ESCAPE, NOT LIKE, anchored at both ends", () => {
    expect(sql("a LIKE 'ab%'", { a: "abc" })).toBe(true);
    expect(sql("a LIKE 'ab%'", { a: "xabc" })).toBe(false);
    expect(sql("a LIKE '%b%'", { a: "abc" })).toBe(true);
    expect(sql("a LIKE 'a_c'", { a: "abc" })).toBe(true);
    expect(sql("a LIKE 'a_c'", { a: "abbc" })).toBe(false);
    expect(sql("a LIKE '_'", { a: "😀" })).toBe(true);
    expect(sql("a LIKE 'a%'", { a: "a\nb" })).toBe(true);
    expect(sql("a LIKE 'a.c'", { a: "abc" })).toBe(false);
    expect(sql("a LIKE 'ABC\\%' ESCAPE '\\'", { a: "ABC%" })).toBe(true);
    expect(sql("a LIKE 'ABC\\%' ESCAPE '\\'", { a: "ABCD" })).toBe(false);
    expect(sql("a LIKE '!_!%!!' ESCAPE '!'", { a: "_%!" })).toBe(true);
    expect(sql("a NOT LIKE 'ab%'", { a: "xyz" })).toBe(true);
    expect(sql("a NOT LIKE 'ab%'", { a: "abc" })).toBe(false);
    expect(sql("a LIKE b", { a: "abc", b: "a%" })).toBe(true);
    expect(truth("a LIKE 'a%'", { a: 5 })).toBe("U");
    expect(sql("a LIKE 'AB%'", { a: "abc" })).toBe(false);
  });

  test('names: attributes by plain, [bracketed], "quoted" and user. names, case-insensitively; keywords in any case', () => {
    const attributes = { region: "eu", "my attr": "v", "x-id": "7", in: "k", Mixed: "m" };
    expect(sql("region = 'eu'", attributes)).toBe(true);
    expect(sql("REGION = 'eu'", attributes)).toBe(true);
    expect(sql("[my attr] = 'v' and [x-id] = 7 And [in] = 'k'", attributes)).toBe(true);
    expect(sql("\"my attr\" = 'v'", attributes)).toBe(true);
    expect(sql("user.region = 'eu' AND USER.[my attr] = 'v'", attributes)).toBe(true);
    expect(sql("mixed = 'm' AND MIXED = 'm'", attributes)).toBe(true);
    expect(sql("[a]]b] = 'q'", { "a]b": "q" })).toBe(true);
    expect(sql("région = 'fr' AND a_1 = 'x'", { région: "fr", a_1: "x" })).toBe(true);
    expect(sql("p('region') = 'eu' AND property('x-' + 'id') IS NULL", attributes)).toBe(true);
    // An exact name wins over one differing only in case.
    expect(sql("a = 'lower'", { A: "upper", a: "lower" })).toBe(true);
    // Inherited members of an object are not attributes.
    expect(sql("toString IS NULL AND [constructor] IS NULL")).toBe(true);
  });

  test("sys.<property> names the system properties, any case; sys.label is sys.subject", () => {
    const properties = EVERY_PROPERTY;
    expect(
      sql(
        "sys.correlationId = 'c' AND sys.Label = 's' AND sys.subject = 's' AND sys.contenttype = 'application/json' " +
          "AND SYS.MessageId = 'm' AND sys.sessionId = 'g' AND sys.To = 't' AND sys.replyTo = 'r'",
        {},
        properties,
      ),
    ).toBe(true);
    expect(sql("sys.correlationId = 'c'", { correlationId: "c" })).toBe(false);
    expect(sql("correlationId = 'c'", {}, { correlationId: "c" })).toBe(false);
  });

  test("newid() is a new string each time", () => {
    expect(sql("newid() <> newid() AND newid() LIKE '%-%'")).toBe(true);
  });
});

describe("SQL filters: what does not parse is Validation naming the column and what was expected", () => {
  const errorOf = (expression: string) => validationOf(() => compileFilter({ sql: expression }));

  test.each([
    ["region = ", "expected a value, found the end of the expression at column 10"],
    ["(region = 'eu'", 'expected ")" to close (, found the end of the expression at column 15'],
    ["region = 'eu", "unterminated string (no closing ') at column 10"],
    ["[region = 'eu'", "unterminated name (no closing ]) at column 1"],
    ["region @ 'eu'", 'unexpected character "@" at column 8'],
    ["region = 'eu' AND", "expected a value, found the end of the expression at column 18"],
    [
      "region = 'eu' region",
      "expected an operator or the end of the expression, found name region at column 15",
    ],
    ["region == 'eu'", 'expected a value, found "=" at column 9'],
    ["a = 1 AND b", "" /* a bare name is a condition */],
    ["amount + 1", "expected a condition, found a value at column 1"],
    ["a = 1 AND 2", "expected a condition, found a value at column 11"],
    ["NOT 'x'", "expected a condition, found a value at column 5"],
    ["(a = 1) + 2 = 3", "expected a value, found a condition at column 2"],
    ["a NOT = 1", 'expected IN or LIKE after NOT, found "=" at column 7'],
    ["a IS 1", "expected NULL after IS, found number 1 at column 6"],
    ["a IS NOT TRUE", "expected NULL after IS NOT, found TRUE at column 10"],
    ["a IN 'x'", "expected \"(\" after IN, found string 'x' at column 6"],
    ["a IN ('x' 'y')", 'expected ")" or "," in the IN list, found string \'y\' at column 11'],
    ["EXISTS a", 'expected "(" after EXISTS, found name a at column 8'],
    ["EXISTS(1)", "expected a property name in EXISTS (...), found number 1 at column 8"],
    ["sys.nope = 1", "unknown system property sys.nope"],
    ["nope.a = 1", "unknown scope nope (expected sys or user) at column 1"],
    ["in = 1", "expected a value, found IN at column 1"],
    ["a LIKE 'x' ESCAPE 'ab'", "the ESCAPE character must be a string of one character at column 19"],
    [
      "a LIKE 'x!' ESCAPE '!'",
      "the LIKE pattern must be a string not ending in its escape character at column 8",
    ],
    ["a LIKE 5", "the LIKE pattern must be a string"],
    ["9223372036854775808 = 1", "integer 9223372036854775808 is out of the Int64 range at column 1"],
    ["a = 99999999999999999999", "integer 99999999999999999999 is out of the Int64 range at column 5"],
    ["nowfunc() = 1", "unknown function nowfunc (known: newid, property, p) at column 1"],
    ["", "expected a value, found the end of the expression at column 1"],
  ])("%s", (expression, expected) => {
    if (expected === "") {
      expect(() => compileFilter({ sql: expression })).not.toThrow();
      return;
    }
    expect(errorOf(expression)).toContain(`SQL filter: ${expected}`);
  });

  test(`an expression over Service Bus's ${MAX_SQL_FILTER_LENGTH} characters is Validation; one of exactly that length compiles`, () => {
    const longest = `a = '${"x".repeat(MAX_SQL_FILTER_LENGTH - 6)}'`;
    expect(longest).toHaveLength(MAX_SQL_FILTER_LENGTH);
    expect(sql(longest, { a: "x".repeat(MAX_SQL_FILTER_LENGTH - 6) })).toBe(true);
    expect(errorOf(`${longest} `)).toContain("1025 characters, over Service Bus's limit of 1024");
  });
});
