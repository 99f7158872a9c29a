import { QueueError } from "../../core/errors.js";
import { attributeEquals, attributeOf } from "./attribute-values.js";
import {
  type AttributeValue,
  type CompiledFilter,
  type CorrelationFilter,
  type FilterableMessage,
  SYSTEM_PROPERTIES,
} from "./filter-types.js";

/** One test of a correlation filter. */
type FieldTest = (message: FilterableMessage) => boolean;

/**
 * Compiles a correlation filter: every system property it gives equal (case-sensitively), and each
 * attribute it gives present and equal ({@link attributeEquals}; names found as {@link attributeOf}
 * finds them, so it agrees with the SQL filter `name = value`). A filter giving nothing is
 * Validation, as on Service Bus.
 */
export function compileCorrelationFilter(filter: CorrelationFilter): CompiledFilter {
  const tests: FieldTest[] = [];
  for (const property of SYSTEM_PROPERTIES) {
    const expected = filter[property];
    if (expected !== undefined) tests.push((message) => message[property] === expected);
  }
  for (const [name, expected] of Object.entries(filter.attributes ?? {}))
    tests.push(attributeTest(name, expected));
  if (tests.length === 0)
    throw new QueueError(
      "Validation",
      "correlation filter: give at least one property or attribute to match",
    );
  return { kind: "correlation", matches: (message) => tests.every((test) => test(message)) };
}

function attributeTest(name: string, expected: AttributeValue): FieldTest {
  const lower = name.toLowerCase();
  return (message) => {
    const actual = attributeOf(message.attributes, name, lower);
    return actual !== undefined && attributeEquals(expected, actual);
  };
}
