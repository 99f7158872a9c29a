import { QueueError } from "../core/errors.js";
import type { SchemaOutput, StandardSchemaV1 } from "../core/standard-schema.js";

/** An event a queue may carry: its name in code, its name on the wire, and the schema that reads it. */
export interface EventDefinition<Name extends string = string, Value = unknown> {
  readonly name: Name;
  /** The text at a queue's `typeAt` that names this event; needed on queues that read a type. */
  readonly wireName: string | undefined;
  readonly schema: StandardSchemaV1<unknown, Value>;
}

/** What `defineEvent` takes beside the name. */
export interface EventOptions<Schema extends StandardSchemaV1> {
  /** The type text that names this event on the wire (`order_shipped`). */
  wireName?: string;
  /** Any Standard Schema v1 validator; what it outputs is what is kept, members it leaves out are gone. */
  schema: Schema;
}

/** The value an event's schema outputs, as subscribers receive it. */
export type EventValue<Event> = Event extends EventDefinition<string, infer Value> ? Value : never;

const EVENT_NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/;

/** Declares an event: `defineEvent("OrderShipped", { wireName: "order_shipped", schema })`. */
export function defineEvent<const Name extends string, Schema extends StandardSchemaV1>(
  name: Name,
  options: EventOptions<Schema>,
): EventDefinition<Name, SchemaOutput<Schema>> {
  if (typeof name !== "string" || !EVENT_NAME.test(name))
    throw new QueueError(
      "Configuration",
      `receiving.invalid: an event name is letters, digits, '_' and '.' (as code names it), not ${JSON.stringify(name)}`,
    );
  const wireName = options?.wireName;
  if (wireName !== undefined && (typeof wireName !== "string" || wireName.length === 0))
    throw new QueueError(
      "Configuration",
      `receiving.invalid: event ${name} has a wireName that is not a non-empty text`,
    );
  const standard = (options?.schema as Partial<StandardSchemaV1> | undefined)?.["~standard"];
  if (standard?.version !== 1 || typeof standard.validate !== "function")
    throw new QueueError(
      "Configuration",
      `receiving.invalid: event ${name} needs a schema implementing Standard Schema v1 (zod, valibot, ArkType, ...)`,
    );
  return Object.freeze({
    name,
    wireName,
    schema: options.schema as StandardSchemaV1<unknown, SchemaOutput<Schema>>,
  });
}
