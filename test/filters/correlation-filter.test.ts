import { describe, expect, test } from "vitest";
import { type CorrelationFilter, compileFilter, filterKind } from "../../src/rules/filters/index.js";
import { EVERY_PROPERTY, message, validationOf } from "./support.js";

const matches = (correlation: CorrelationFilter, ...args: Parameters<typeof message>) =>
  compileFilter({ correlation }).matches(message(...args));

describe("correlation filters", () => {
  test("every given system property equal, case-sensitively; an absent one is not equal", () => {
    const properties = EVERY_PROPERTY;
    expect(matches(properties, {}, properties)).toBe(true);
    for (const [name, value] of Object.entries(properties)) {
      expect(matches({ [name]: value }, {}, properties)).toBe(true);
      expect(matches({ [name]: value.toUpperCase() }, {}, properties)).toBe(false);
      expect(matches({ [name]: value }, {}, {})).toBe(false);
    }
  });

  test("attributes: each present and equal; others on the message are ignored", () => {
    expect(
      matches({ attributes: { region: "eu", tier: "gold" } }, { region: "eu", tier: "gold", x: "y" }),
    ).toBe(true);
    expect(matches({ attributes: { region: "eu", tier: "gold" } }, { region: "eu" })).toBe(false);
    expect(matches({ attributes: { region: "eu" } }, { region: "us" })).toBe(false);
    expect(
      matches({ correlationId: "c", attributes: { region: "eu" } }, { region: "eu" }, { correlationId: "d" }),
    ).toBe(false);
  });

  test("a number or boolean equals its canonical text, and a typed attribute of the same value", () => {
    expect(matches({ attributes: { n: 5 } }, { n: "5" })).toBe(true);
    expect(matches({ attributes: { n: 5 } }, { n: 5 })).toBe(true);
    expect(matches({ attributes: { n: 5 } }, { n: "5.0" })).toBe(false);
    expect(matches({ attributes: { n: 0.5 } }, { n: "0.5" })).toBe(true);
    expect(matches({ attributes: { f: true } }, { f: "true" })).toBe(true);
    expect(matches({ attributes: { f: true } }, { f: "True" })).toBe(false);
    expect(matches({ attributes: { f: false } }, { f: false })).toBe(true);
    expect(matches({ attributes: { n: "5" } }, { n: 5 })).toBe(true);
    expect(matches({ attributes: { n: 1 } }, { n: true })).toBe(false);
  });

  test("attribute names are found as SQL finds them: exactly, else ignoring case", () => {
    expect(matches({ attributes: { Region: "eu" } }, { region: "eu" })).toBe(true);
    expect(matches({ attributes: { a: "lower" } }, { A: "upper", a: "lower" })).toBe(true);
    expect(matches({ attributes: { toString: "x" } }, {})).toBe(false);
  });

  test("a correlation filter that gives nothing is Validation, as on Service Bus", () => {
    expect(validationOf(() => compileFilter({ correlation: {} }))).toContain(
      "give at least one property or attribute",
    );
    expect(validationOf(() => compileFilter({ correlation: { attributes: {} } }))).toContain("at least one");
  });

  test("filterKind names the kind of each filter", () => {
    expect(filterKind({ correlation: { to: "x" } })).toBe("correlation");
    expect(filterKind({ sql: "1=1" })).toBe("sql");
    expect(filterKind({ policy: {} })).toBe("policy");
    expect(compileFilter({ correlation: { to: "x" } }).kind).toBe("correlation");
    expect(compileFilter({ sql: "1=1" }).kind).toBe("sql");
    expect(compileFilter({ policy: {}, scope: "body" }).kind).toBe("policy");
  });
});
