import { QueueError } from "../../src/core/errors.js";
import { type AttributeValue, compileFilter, type FilterableMessage } from "../../src/rules/filters/index.js";

/** A value for each system property. */
export const EVERY_PROPERTY = {
  correlationId: "c",
  subject: "s",
  contentType: "application/json",
  messageId: "m",
  sessionId: "g",
  to: "t",
  replyTo: "r",
} as const;

/** A message with these attributes and system properties, and a body (JSON of `body` unless given as text). */
export function message(
  attributes: Record<string, AttributeValue> = {},
  properties: Omit<FilterableMessage, "body" | "attributes"> = {},
  body: unknown = {},
): FilterableMessage {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  return { body: new TextEncoder().encode(text), attributes, ...properties };
}

/** Whether the SQL filter matches the message. */
export function sql(
  expression: string,
  attributes: Record<string, AttributeValue> = {},
  properties = {},
): boolean {
  return compileFilter({ sql: expression }).matches(message(attributes, properties));
}

/** The three-valued truth of a SQL condition on a message: TRUE when it matches, FALSE when its NOT does, else UNKNOWN. */
export function truth(expression: string, attributes: Record<string, AttributeValue> = {}): "T" | "F" | "U" {
  if (sql(expression, attributes)) return "T";
  return sql(`NOT (${expression})`, attributes) ? "F" : "U";
}

/** The Validation message a thunk throws (it fails the test when it throws anything else or nothing). */
export function validationOf(thunk: () => unknown): string {
  try {
    thunk();
  } catch (error) {
    if (QueueError.is(error, "Validation")) return error.message;
    throw error;
  }
  throw new Error("expected a Validation error, nothing was thrown");
}
