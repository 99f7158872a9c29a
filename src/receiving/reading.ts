import type { StandardResult } from "../core/standard-schema.js";
import type { EventDefinition } from "./events.js";
import { type BodyPath, readPath } from "./paths.js";
import { NOT_JSON, type ParkReason, type Problem, problemOf, SCHEMA_THREW } from "./problems.js";

/** The largest event kept, as the UTF-8 bytes of its JSON (64 KiB); larger ones are parked `too_large`. */
export const MAX_EVENT_BYTES = 65_536;

/** How a queue's messages are read: where the id and type are, and the events it lists. */
export interface ReadingRules {
  readonly idAt: BodyPath;
  /** Absent on a queue of one event. */
  readonly typeAt: BodyPath | undefined;
  readonly byWireName: ReadonlyMap<string, EventDefinition>;
  /** The one event of a queue without `typeAt`. */
  readonly only: EventDefinition | undefined;
}

/** A message read as its event: the id as text and the kept value as JSON. */
export interface ReadEvent {
  readonly kind: "event";
  readonly event: EventDefinition;
  readonly id: string;
  readonly payload: string;
}

/** A message that cannot become an event, and why. */
export interface ReadFailure {
  readonly kind: "parked";
  readonly reason: ParkReason;
  readonly problems: readonly Problem[];
  /** The event it was read as, when the type named one (or the queue has one). */
  readonly event: string | undefined;
}

/** What reading a message gives. */
export type Reading = ReadEvent | ReadFailure;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Reads a body as its queue's event: JSON, then the type, the id, and the event's schema; never throws. */
export function readMessage(rules: ReadingRules, body: Uint8Array): Reading | Promise<Reading> {
  let root: unknown;
  try {
    root = JSON.parse(utf8.decode(body));
  } catch {
    return parked("unreadable", [NOT_JSON], undefined);
  }
  const problems: Problem[] = [];
  let event = rules.only;
  if (rules.typeAt !== undefined) {
    const type = readPath(root, rules.typeAt);
    if (typeof type === "string" && type.length > 0) {
      event = rules.byWireName.get(type);
      if (event === undefined) return parked("unlisted_type", [], undefined);
    } else problems.push({ field: rules.typeAt.text, rule: "type" });
  }
  const id = idOf(readPath(root, rules.idAt));
  if (id === undefined) problems.push({ field: rules.idAt.text, rule: "id" });
  if (event === undefined) return parked("unreadable", problems, undefined);
  let result: StandardResult<unknown> | Promise<StandardResult<unknown>>;
  try {
    result = event.schema["~standard"].validate(root);
  } catch {
    return parked("unreadable", [...problems, SCHEMA_THREW], event.name);
  }
  const found = event;
  if (result instanceof Promise)
    return result.then(
      (answer) => asEvent(found, id, problems, answer),
      () => parked("unreadable", [...problems, SCHEMA_THREW], found.name),
    );
  return asEvent(event, id, problems, result);
}

/** The event's id as text: a non-empty text, or a whole number exactly representable (larger ones would collide once parsed). */
export function idOf(value: unknown): string | undefined {
  if (typeof value === "string") return value.length > 0 ? value : undefined;
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

function asEvent(
  event: EventDefinition,
  id: string | undefined,
  problems: Problem[],
  result: StandardResult<unknown>,
): Reading {
  if (result.issues !== undefined) problems.push(...result.issues.map(problemOf));
  if (problems.length > 0 || id === undefined) return parked("unreadable", problems, event.name);
  let payload: string | undefined;
  try {
    payload = JSON.stringify((result as { value: unknown }).value);
  } catch {
    payload = undefined;
  }
  // A value JSON cannot hold (a BigInt, a cycle, `undefined`) cannot be kept or read back.
  if (payload === undefined) return parked("unreadable", [NOT_JSON], event.name);
  if (Buffer.byteLength(payload, "utf8") > MAX_EVENT_BYTES) return parked("too_large", [], event.name);
  return { kind: "event", event, id, payload };
}

function parked(reason: ParkReason, problems: readonly Problem[], event: string | undefined): ReadFailure {
  return { kind: "parked", reason, problems, event };
}
