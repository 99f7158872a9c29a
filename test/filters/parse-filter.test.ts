import { describe, expect, test } from "vitest";
import { compileFilter, DEFAULT_RULE_NAME, parseFilter } from "../../src/rules/filters/index.js";
import { validationOf } from "./support.js";

describe("parseFilter: a filter from JSON, a CLI or a server", () => {
  test("each kind comes back as it was given", () => {
    const filters = [
      { correlation: { correlationId: "c", attributes: { a: "x", n: 5, f: true } } },
      { sql: "region = 'eu'" },
      { policy: { k: ["v"] } },
      { policy: '{"k": ["v"]}', scope: "body" },
      { policy: { k: ["v"] }, scope: "attributes" },
    ];
    for (const filter of filters) expect(parseFilter(JSON.parse(JSON.stringify(filter)))).toEqual(filter);
  });

  test.each([
    [null, "filter: a filter must be an object, not null"],
    ["1=1", 'filter: a filter must be an object, not "1=1"'],
    [[], "filter: a filter must be an object, not an array"],
    [{}, "filter: a filter needs one of correlation, sql, policy"],
    [{ sql: "1=1", policy: {} }, "filter: a filter has one of correlation, sql, policy, not sql and policy"],
    [{ sql: "1=1", scope: "body" }, "filter: a sql filter has no scope"],
    [{ sql: 1 }, "filter: sql must be a string, not number"],
    [{ correlation: "c" }, 'filter: correlation must be an object, not "c"'],
    [{ correlation: { label: "x" } }, "filter: correlation has no label (it has correlationId, subject"],
    [{ correlation: { to: 5 } }, "filter: correlation.to must be a string, not number"],
    [{ correlation: { attributes: [] } }, "filter: correlation.attributes must be an object, not an array"],
    [
      { correlation: { attributes: { a: null } } },
      'correlation.attributes["a"] must be a string, a finite number or a boolean, not null',
    ],
    [
      { correlation: { attributes: { a: Number.NaN } } },
      'correlation.attributes["a"] must be a string, a finite number',
    ],
    [{ policy: 5 }, "filter: policy must be JSON text or an object, not number"],
    [{ policy: {}, scope: "MessageBody" }, 'filter: scope must be attributes or body, not "MessageBody"'],
  ])("%j is refused", (input, expected) => {
    expect(validationOf(() => parseFilter(input))).toContain(expected);
    expect(validationOf(() => compileFilter(input as never))).toContain(expected);
  });

  test("the default rule is named $Default", () => {
    expect(DEFAULT_RULE_NAME).toBe("$Default");
  });
});
