import { describe, expect, test } from "vitest";
import { compileFilter, POLICY_LIMITS } from "../../src/rules/filters/index.js";
import { message, validationOf } from "./support.js";

type Attributes = Record<string, string | number | boolean>;

/** Whether an attribute-scoped policy matches a message with these attributes. */
const onAttributes = (policy: Record<string, unknown> | string, attributes: Attributes) =>
  compileFilter({ policy }).matches(message(attributes));
/** Whether a body-scoped policy matches a message with this body (JSON of it, or the text given). */
const onBody = (policy: Record<string, unknown>, body: unknown) =>
  compileFilter({ policy, scope: "body" }).matches(message({}, {}, body));
const errorOf = (policy: unknown, scope: "attributes" | "body" = "attributes") =>
  validationOf(() => compileFilter({ policy: policy as Record<string, unknown>, scope }));

describe("SNS filter policies: operators", () => {
  test("exact strings: case-sensitive, any of the list; every key must match (AND)", () => {
    const policy = { store: ["example_corp", "other"], event: ["order_placed"] };
    expect(onAttributes(policy, { store: "example_corp", event: "order_placed" })).toBe(true);
    expect(onAttributes(policy, { store: "other", event: "order_placed", extra: "x" })).toBe(true);
    expect(onAttributes(policy, { store: "Example_corp", event: "order_placed" })).toBe(false);
    expect(onAttributes(policy, { store: "example_corp" })).toBe(false);
  });

  test("the policy may be JSON text, and an empty policy matches everything", () => {
    expect(onAttributes('{"store": ["a"]}', { store: "a" })).toBe(true);
    expect(onAttributes("{}", {})).toBe(true);
  });

  test("exact numbers: equal to five decimal places, attribute text read as a number", () => {
    expect(onAttributes({ price: [301.5] }, { price: "301.5" })).toBe(true);
    expect(onAttributes({ price: [301.5] }, { price: "3.015e2" })).toBe(true);
    expect(onAttributes({ price: [301.5] }, { price: 301.5 })).toBe(true);
    expect(onAttributes({ price: [1] }, { price: "1.000001" })).toBe(true);
    expect(onAttributes({ price: [1] }, { price: "1.0001" })).toBe(false);
    expect(onAttributes({ price: [5] }, { price: "five" })).toBe(false);
    // In the body a string is a string: "5" is not the number 5.
    expect(onBody({ price: [5] }, { price: "5" })).toBe(false);
    expect(onBody({ price: [5] }, { price: 5.0 })).toBe(true);
    expect(onBody({ price: ["5"] }, { price: 5 })).toBe(false);
  });

  test("true, false and null match those JSON values; in attributes true is the text true", () => {
    expect(onBody({ ok: [true] }, { ok: true })).toBe(true);
    expect(onBody({ ok: [true] }, { ok: "true" })).toBe(false);
    expect(onBody({ ok: [false] }, { ok: true })).toBe(false);
    expect(onBody({ gone: [null] }, { gone: null })).toBe(true);
    expect(onBody({ gone: [null] }, {})).toBe(false);
    expect(onAttributes({ ok: [true] }, { ok: "true" })).toBe(true);
    expect(onAttributes({ ok: [true] }, { ok: true })).toBe(true);
  });

  test("prefix and suffix", () => {
    expect(onAttributes({ k: [{ prefix: "bas" }] }, { k: "baseball" })).toBe(true);
    expect(onAttributes({ k: [{ prefix: "bas" }] }, { k: "rugby" })).toBe(false);
    expect(onAttributes({ k: [{ suffix: "ball" }] }, { k: "baseball" })).toBe(true);
    expect(onAttributes({ k: [{ suffix: "ball" }] }, { k: "balls" })).toBe(false);
    expect(onBody({ k: [{ prefix: "1" }] }, { k: 10 })).toBe(false);
  });

  test("equals-ignore-case", () => {
    expect(onAttributes({ k: [{ "equals-ignore-case": "Rugby" }] }, { k: "RUGBY" })).toBe(true);
    expect(onAttributes({ k: [{ "equals-ignore-case": "Rugby" }] }, { k: "rugbyx" })).toBe(false);
  });

  test("anything-but: a value, a list of strings or numbers, a prefix, a suffix; an absent key never matches", () => {
    expect(onAttributes({ k: [{ "anything-but": "x" }] }, { k: "y" })).toBe(true);
    expect(onAttributes({ k: [{ "anything-but": "x" }] }, { k: "x" })).toBe(false);
    expect(onAttributes({ k: [{ "anything-but": ["rugby", "tennis"] }] }, { k: "baseball" })).toBe(true);
    expect(onAttributes({ k: [{ "anything-but": ["rugby", "tennis"] }] }, { k: "tennis" })).toBe(false);
    expect(onAttributes({ k: [{ "anything-but": [100, 500] }] }, { k: "101" })).toBe(true);
    expect(onAttributes({ k: [{ "anything-but": [100, 500] }] }, { k: "100.0" })).toBe(false);
    expect(onAttributes({ k: [{ "anything-but": 100 }] }, { k: "abc" })).toBe(true);
    expect(onAttributes({ k: [{ "anything-but": { prefix: "order-" } }] }, { k: "invoice-1" })).toBe(true);
    expect(onAttributes({ k: [{ "anything-but": { prefix: "order-" } }] }, { k: "order-1" })).toBe(false);
    expect(onAttributes({ k: [{ "anything-but": { suffix: ".tmp" } }] }, { k: "a.txt" })).toBe(true);
    expect(onAttributes({ k: [{ "anything-but": { suffix: ".tmp" } }] }, { k: "a.tmp" })).toBe(false);
    expect(onAttributes({ k: [{ "anything-but": "x" }] }, {})).toBe(false);
  });

  test("numeric: =, <, <=, >, >= and a range of two bounds", () => {
    const numeric = (range: unknown[], value: string) =>
      onAttributes({ n: [{ numeric: range }] }, { n: value });
    expect(numeric(["=", 301.5], "301.50")).toBe(true);
    expect(numeric(["<", 0], "-1")).toBe(true);
    expect(numeric(["<", 0], "0")).toBe(false);
    expect(numeric(["<=", 0], "0")).toBe(true);
    expect(numeric([">", 0], "0")).toBe(false);
    expect(numeric([">=", 0], "0")).toBe(true);
    expect(numeric([">", 0, "<=", 150], "150")).toBe(true);
    expect(numeric([">", 0, "<=", 150], "150.00001")).toBe(false);
    expect(numeric([">=", 0, "<", 150], "0")).toBe(true);
    expect(numeric([">", 0, "<=", 150], "0")).toBe(false);
    expect(numeric([">", 0], "lots")).toBe(false);
    // Beyond SNS's range of numbers a value is not one.
    expect(numeric([">", 0], "2e9")).toBe(false);
    expect(onBody({ n: [{ numeric: [">", 0] }] }, { n: "5" })).toBe(false);
    expect(onBody({ n: [{ numeric: [">", 0] }] }, { n: 5 })).toBe(true);
  });

  test("exists: true matches a present key, false an absent one (a key with other conditions too)", () => {
    expect(onAttributes({ k: [{ exists: true }] }, { k: "" })).toBe(true);
    expect(onAttributes({ k: [{ exists: true }] }, {})).toBe(false);
    expect(onAttributes({ k: [{ exists: false }] }, {})).toBe(true);
    expect(onAttributes({ k: [{ exists: false }] }, { k: "x" })).toBe(false);
    expect(onAttributes({ k: ["x", { exists: false }] }, { k: "x" })).toBe(true);
    expect(onAttributes({ k: ["x", { exists: false }] }, {})).toBe(true);
    expect(onAttributes({ k: ["x", { exists: false }] }, { k: "y" })).toBe(false);
    expect(onBody({ a: { b: [{ exists: false }] } }, { a: { c: 1 } })).toBe(true);
    expect(onBody({ a: [{ exists: true }] }, { a: { b: 1 } })).toBe(false);
    expect(onBody({ a: [{ exists: true }] }, { a: null })).toBe(true);
  });

  test("$or: one of the branches, beside the other keys", () => {
    const policy = {
      source: ["aws.cloudwatch"],
      $or: [{ metricName: ["CPU"] }, { namespace: [{ prefix: "AWS/" }] }],
    };
    expect(onAttributes(policy, { source: "aws.cloudwatch", metricName: "CPU" })).toBe(true);
    expect(onAttributes(policy, { source: "aws.cloudwatch", namespace: "AWS/EC2" })).toBe(true);
    expect(onAttributes(policy, { source: "aws.cloudwatch", namespace: "Custom" })).toBe(false);
    expect(onAttributes(policy, { source: "other", metricName: "CPU" })).toBe(false);
    expect(onBody({ a: { $or: [{ b: [1] }, { c: [2] }] } }, { a: { c: 2 } })).toBe(true);
  });

  test("String.Array attributes (JSON array text) match when one element does", () => {
    const interests = JSON.stringify(["soccer", "rugby", "hockey"]);
    expect(onAttributes({ k: ["rugby", "football"] }, { k: interests })).toBe(true);
    expect(onAttributes({ k: ["baseball"] }, { k: interests })).toBe(false);
    expect(
      onAttributes({ k: [{ "anything-but": ["rugby", "tennis"] }] }, { k: '["rugby", "baseball"]' }),
    ).toBe(true);
    expect(onAttributes({ k: [{ "anything-but": ["rugby"] }] }, { k: '["rugby"]' })).toBe(false);
    expect(onAttributes({ k: [{ numeric: [">", 10] }] }, { k: "[1, 20]" })).toBe(true);
    // Text that only looks like an array is a string.
    expect(onAttributes({ k: ["[not json"] }, { k: "[not json" })).toBe(true);
  });

  test("body scope: nested keys, arrays matching any element, nested objects matching within one element", () => {
    const body = { customer: { interests: ["rugby", "soccer"], address: { city: "Lyon" } }, amount: 12 };
    expect(onBody({ customer: { interests: ["soccer"] } }, body)).toBe(true);
    expect(
      onBody({ customer: { address: { city: ["Lyon"] } }, amount: [{ numeric: [">", 10] }] }, body),
    ).toBe(true);
    expect(onBody({ customer: { address: { city: ["Paris"] } } }, body)).toBe(false);
    expect(onBody({ items: { sku: ["b"] } }, { items: [{ sku: "a" }, { sku: "b" }] })).toBe(true);
    expect(
      onBody(
        { items: { sku: ["b"], qty: [1] } },
        {
          items: [
            { sku: "a", qty: 1 },
            { sku: "b", qty: 2 },
          ],
        },
      ),
    ).toBe(false);
    expect(onBody({ m: [3] }, { m: [[1, 2], [3]] })).toBe(true);
    // Attribute scope ignores the body, body scope the attributes.
    expect(compileFilter({ policy: { k: ["v"] }, scope: "body" }).matches(message({ k: "v" }, {}, {}))).toBe(
      false,
    );
  });

  test("a body that is not a JSON object matches nothing, not even exists: false", () => {
    expect(onBody({ k: [{ exists: false }] }, "not json")).toBe(false);
    expect(onBody({ k: [{ exists: false }] }, "[1]")).toBe(false);
    expect(onBody({ k: [{ exists: false }] }, '"text"')).toBe(false);
    expect(onBody({ k: [{ exists: false }] }, {})).toBe(true);
    const invalidUtf8 = { body: new Uint8Array([0x7b, 0xff, 0x7d]), attributes: {} };
    expect(compileFilter({ policy: { k: [{ exists: false }] }, scope: "body" }).matches(invalidUtf8)).toBe(
      false,
    );
  });
});

describe("SNS filter policies: what SNS refuses is Validation naming it", () => {
  test(`at most ${POLICY_LIMITS.maxKeys} keys (in body scope only the top level counts; a $or adds its largest branch)`, () => {
    const keys = (count: number) =>
      Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, ["v"]]));
    expect(() => compileFilter({ policy: keys(5) })).not.toThrow();
    expect(errorOf(keys(6))).toContain("6 keys, over SNS's limit of 5");
    expect(() => compileFilter({ policy: { a: keys(3), b: keys(3) }, scope: "body" })).not.toThrow();
    expect(errorOf({ ...keys(4), $or: [keys(1), { x: ["v"], y: ["v"] }] })).toContain("6 keys");
  });

  test(`at most ${POLICY_LIMITS.maxCombinations} combinations: the product of the array lengths, times their depth in the body`, () => {
    const values = (count: number) => Array.from({ length: count }, (_, i) => `v${i}`);
    expect(() => compileFilter({ policy: { a: values(15), b: values(10) } })).not.toThrow();
    expect(errorOf({ a: values(15), b: values(10), c: values(2) })).toContain(
      "300 combinations of values, over SNS's limit of 150",
    );
    expect(errorOf({ a: values(151) })).toContain("151 combinations");
    // AWS's example: 4 values three levels down and 3 values two levels down make 3 x 4 x 2 x 3 = 72.
    const nested = { key_a: { key_b: { key_c: values(4) } }, key_d: { key_e: values(3) } };
    expect(() => compileFilter({ policy: nested, scope: "body" })).not.toThrow();
    const deeper = { key_a: { key_b: { key_c: values(7) } }, key_d: { key_e: values(4) } };
    expect(validationOf(() => compileFilter({ policy: deeper, scope: "body" }))).toContain(
      "168 combinations",
    );
    // A $or adds its branches' combinations.
    expect(errorOf({ a: values(10), $or: [{ b: values(10) }, { c: values(6) }] })).toContain(
      "160 combinations",
    );
  });

  test("at most 256 KB of JSON", () => {
    const big = JSON.stringify({ k: ["x".repeat(POLICY_LIMITS.maxBytes)] });
    expect(errorOf(big)).toMatch(/filter policy: \d+ bytes, over SNS's limit of 262144 \(256 KB\)/);
  });

  test("numbers between -1e9 and 1e9", () => {
    expect(() => compileFilter({ policy: { n: [1e9, -1e9] } })).not.toThrow();
    expect(errorOf({ n: [1e9 + 1] })).toContain("outside SNS's range of -1e9 to 1e9");
    expect(errorOf({ n: [{ numeric: [">", -2e9] }] })).toContain("outside SNS's range");
  });

  test.each([
    ["not json", "filter policy: not JSON"],
    ["[1]", "filter policy: must be a JSON object"],
    [[], "filter: policy must be JSON text or an object, not an array"],
    [{ k: "v" }, 'key "k": must be an array of conditions'],
    [{ k: [] }, 'key "k": the array of conditions is empty'],
    [{ k: [["v"]] }, "a condition must be a string, a number, true, false, null or an operator object"],
    [{ k: [{ prefix: 1 }] }, "prefix takes a string"],
    [{ k: [{ prefix: "a", suffix: "b" }] }, "an operator object has exactly one operator, not 2"],
    [{ k: [{ wildcard: "a*" }] }, 'unrecognized operator "wildcard"'],
    [{ k: [{ exists: "yes" }] }, "exists must be true or false"],
    [{ k: [{ "anything-but": [] }] }, "anything-but has an empty list"],
    [{ k: [{ "anything-but": ["a", 1] }] }, "anything-but takes strings or numbers"],
    [{ k: [{ "anything-but": { wildcard: "a" } }] }, "anything-but takes a value, a list"],
    [{ k: [{ numeric: [">"] }] }, "numeric takes"],
    [{ k: [{ numeric: ["!=", 1] }] }, 'numeric: unrecognized operator "!="'],
    [{ k: [{ numeric: [">", "1"] }] }, "numeric: the value of > must be a number"],
    [{ k: [{ numeric: ["<", 5, ">", 1] }] }, "numeric: a range starts with > or >="],
    [{ k: [{ numeric: [">", 1, ">", 5] }] }, "numeric: a range ends with < or <="],
    [{ k: [{ numeric: [">", 5, "<", 1] }] }, "numeric: the lower bound must be below the upper one"],
    [{ $or: [{ a: ["x"] }] }, "$or takes an array of at least two policy objects"],
    [{ a: { b: ["x"] } }, "an attribute-scoped policy cannot nest keys"],
  ])("%j is refused", (policy, expected) => {
    expect(errorOf(policy)).toContain(expected);
  });

  test("an empty nested object is refused in body scope", () => {
    expect(errorOf({ a: {} }, "body")).toContain("a nested object or $or branch is empty");
  });
});
