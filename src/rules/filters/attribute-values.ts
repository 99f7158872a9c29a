import type { AttributeValue } from "./filter-types.js";

/** A decimal number as SQL and JSON write it: no hex, no spaces, no `Infinity`. */
const NUMBER_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * The value of attribute `name` (`lowerName` is its lower case): the exact name first, else the
 * first whose name differs only in case, as Service Bus's property names are case-insensitive.
 */
export function attributeOf(
  attributes: Readonly<Record<string, AttributeValue>>,
  name: string,
  lowerName: string,
): AttributeValue | undefined {
  const exact = attributes[name];
  // The typeof test also skips what a plain object inherits (`toString`, `constructor`).
  if (isAttributeValue(exact)) return exact;
  for (const key in attributes) {
    if (key.length !== name.length || key.toLowerCase() !== lowerName) continue;
    const value = attributes[key];
    if (isAttributeValue(value)) return value;
  }
  return undefined;
}

/** True for a string, a number or a boolean. */
export function isAttributeValue(value: unknown): value is AttributeValue {
  const type = typeof value;
  return type === "string" || type === "number" || type === "boolean";
}

/**
 * Whether a filter's value equals a message's: the same type and value, or a string and the
 * canonical text of the other (`"5"` equals 5, `"true"` equals true), so the same filter works on
 * providers whose attributes are strings and on those whose attributes are typed.
 */
export function attributeEquals(filterValue: AttributeValue, messageValue: AttributeValue): boolean {
  if (filterValue === messageValue) return true;
  if (typeof filterValue === "string")
    return typeof messageValue !== "string" && filterValue === String(messageValue);
  return typeof messageValue === "string" && messageValue === String(filterValue);
}

/** True when a text spells a number in decimal (`"5"`, `"-0.5"`, `"1e3"`; not `"0x1"`, `" 5"` or `"Infinity"`). */
export function isNumberText(text: string): boolean {
  return NUMBER_TEXT.test(text);
}

/** The number a text spells in decimal, or undefined when it spells none. */
export function numberFromText(text: string): number | undefined {
  return NUMBER_TEXT.test(text) ? Number(text) : undefined;
}
