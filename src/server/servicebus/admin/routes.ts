import { QueueError } from "../../../core/errors.js";
import { parseEntityPath } from "../entities.js";

/** What a request's path names. */
export type AdminRoute =
  | { readonly kind: "health" }
  | { readonly kind: "namespace" }
  | { readonly kind: "queues" }
  /** A list of entities this server has none of yet (topics): an empty feed. */
  | { readonly kind: "no-entities"; readonly title: string }
  | { readonly kind: "queue"; readonly name: string }
  /** A path that names nothing this server serves: a topic's subscriptions and rules, a sub-queue, ... */
  | { readonly kind: "unknown"; readonly path: string };

/**
 * The route of a request path (`/orders`, `/$Resources/Queues`, `/$namespaceinfo`), matched as
 * Azure does: the `$` names and sub-queues without regard to case, trailing slashes ignored.
 * `/health` is the emulator's health check only for a request without credentials (`signed`
 * false): the SDK signs every request, so a queue named `health` stays reachable.
 */
export function routeOf(rawPath: string, signed: boolean): AdminRoute {
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    throw new QueueError(
      "Validation",
      `the path ${JSON.stringify(rawPath)} is not percent-encoded correctly`,
    );
  }
  const trimmed = path.replace(/^\/+/, "").replace(/\/+$/, "");
  const lower = trimmed.toLowerCase();
  if (lower === "health" && !signed) return { kind: "health" };
  if (lower === "$namespaceinfo") return { kind: "namespace" };
  if (lower === "$resources/queues") return { kind: "queues" };
  if (lower === "$resources/topics") return { kind: "no-entities", title: "Topics" };
  if (trimmed === "") return { kind: "unknown", path };
  const entity = parseEntityPath(trimmed);
  if (entity === undefined || entity.deadLetter || entity.management)
    return { kind: "unknown", path: trimmed };
  return { kind: "queue", name: entity.queue };
}
