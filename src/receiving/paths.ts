import { QueueError } from "../core/errors.js";

/** A dotted path into a JSON body (`meta.id`, `lines.0.sku`), as configured and as segments. */
export interface BodyPath {
  readonly text: string;
  readonly segments: readonly string[];
}

/** Parses a dotted path; `what` names the option in the error (`queue orders: idAt`). */
export function bodyPath(what: string, text: unknown): BodyPath {
  if (typeof text !== "string" || text.length === 0)
    throw new QueueError(
      "Configuration",
      `receiving.invalid: ${what} must be a dotted path such as "id" or "meta.id"`,
    );
  const segments = text.split(".");
  if (segments.some((segment) => segment.length === 0))
    throw new QueueError(
      "Configuration",
      `receiving.invalid: ${what} ${JSON.stringify(text)} has an empty segment`,
    );
  return { text, segments };
}

/** The value at `path` in `root`, reading own members only (a body's `__proto__` is a key like any other). */
export function readPath(root: unknown, path: BodyPath): unknown {
  let value = root;
  for (const segment of path.segments) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, segment)) return undefined;
    value = (value as Record<string, unknown>)[segment];
  }
  return value;
}
