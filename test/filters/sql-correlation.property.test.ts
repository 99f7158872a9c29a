import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  type AttributeValue,
  type CorrelationFilter,
  compileFilter,
  SYSTEM_PROPERTIES,
} from "../../src/rules/filters/index.js";
import { message } from "./support.js";

/** Few names and values, so that random filters and messages often meet. */
const NAMES = ["a", "A", "region", "x-id", "my attr", "b]c"];
const TEXTS = ["x", "y", "it's", "", "5", "5.0", "true", "True", "0.5"];
const text = fc.constantFrom(...TEXTS);
const filterValue: fc.Arbitrary<AttributeValue> = fc.oneof(text, fc.constantFrom(5, 0.5, 50), fc.boolean());

const correlation: fc.Arbitrary<CorrelationFilter> = fc
  .record(
    {
      ...Object.fromEntries(SYSTEM_PROPERTIES.map((property) => [property, text])),
      attributes: fc.dictionary(fc.constantFrom(...NAMES), filterValue, { maxKeys: 3 }),
    },
    { requiredKeys: [] },
  )
  .filter(
    (filter) =>
      Object.keys(filter).some((key) => key !== "attributes") ||
      Object.keys(filter.attributes ?? {}).length > 0,
  );

/** Our core's messages: string attributes, some system properties. */
const messages = fc.record({
  attributes: fc.dictionary(fc.constantFrom(...NAMES), text, { maxKeys: 4 }),
  properties: fc.record(Object.fromEntries(SYSTEM_PROPERTIES.map((property) => [property, text])), {
    requiredKeys: [],
  }),
});

/** A SQL string literal. */
const literal = (value: string) => `'${value.replaceAll("'", "''")}'`;

/**
 * The SQL filter equivalent to a correlation filter: each field `=` its value, ANDed. A number or
 * boolean is compared as its canonical text (a string literal), which is what a correlation filter
 * compares a string attribute with.
 */
function toSql(filter: CorrelationFilter): string {
  const terms: string[] = [];
  for (const property of SYSTEM_PROPERTIES) {
    const value = filter[property];
    if (value !== undefined) terms.push(`sys.${property} = ${literal(value)}`);
  }
  for (const [name, value] of Object.entries(filter.attributes ?? {}))
    terms.push(`[${name.replaceAll("]", "]]")}] = ${literal(String(value))}`);
  return terms.join(" AND ");
}

describe("a SQL filter and its equivalent correlation filter agree", () => {
  test("on random messages with string attributes", () => {
    fc.assert(
      fc.property(correlation, fc.array(messages, { minLength: 1, maxLength: 10 }), (filter, batch) => {
        const byCorrelation = compileFilter({ correlation: filter });
        const bySql = compileFilter({ sql: toSql(filter) });
        for (const { attributes, properties } of batch) {
          const candidate = message(attributes, properties);
          expect(bySql.matches(candidate)).toBe(byCorrelation.matches(candidate));
        }
      }),
      { numRuns: 500 },
    );
  });

  test("and both match a message built from the filter itself", () => {
    fc.assert(
      fc.property(correlation, (filter) => {
        const { attributes = {}, ...properties } = filter;
        const candidate = message(
          Object.fromEntries(Object.entries(attributes).map(([name, value]) => [name, String(value)])),
          properties,
        );
        expect(compileFilter({ correlation: filter }).matches(candidate)).toBe(true);
        expect(compileFilter({ sql: toSql(filter) }).matches(candidate)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
