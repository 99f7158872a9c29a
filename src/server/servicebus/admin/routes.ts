import { QueueError } from "../../../core/errors.js";
import { parseEntityPath } from "../entities.js";

/** What a request's path names. */
export type AdminRoute =
  | { readonly kind: "health" }
  | { readonly kind: "namespace" }
  | { readonly kind: "queues" }
  | { readonly kind: "topics" }
  /** A queue or a topic: they share one namespace of names, so the stored entity (or a PUT's body) tells which. */
  | { readonly kind: "entity"; readonly name: string }
  | { readonly kind: "subscriptions"; readonly topic: string }
  | { readonly kind: "subscription"; readonly topic: string; readonly subscription: string }
  | { readonly kind: "rules"; readonly topic: string; readonly subscription: string }
  | { readonly kind: "rule"; readonly topic: string; readonly subscription: string; readonly rule: string }
  /** A path that names nothing this server serves: a sub-queue, a `$` resource, ... */
  | { readonly kind: "unknown"; readonly path: string };

// `<topic>/Subscriptions[/<sub>[/Rules[/<rule>]]]`: a topic's name may hold '/', a subscription's
// and a rule's may not (the SDK reads them so too); the last `/Subscriptions` splits them.
const TOPIC_PATH = /^(.+)\/subscriptions(?:\/([^/$][^/]*)(\/rules(?:\/([^/]+))?)?)?$/i;

/**
 * The route of a request path (`/orders`, `/$Resources/Queues`, `/orders/Subscriptions/billing`),
 * matched as Azure does: the `$` names, `Subscriptions` and `Rules` without regard to case,
 * trailing slashes ignored. `/health` is the emulator's health check only for a request without
 * credentials (`signed` false): the SDK signs every request, so a queue named `health` stays reachable.
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
  if (lower === "$resources/topics") return { kind: "topics" };
  if (trimmed === "") return { kind: "unknown", path };
  const topicPath = TOPIC_PATH.exec(trimmed);
  if (topicPath !== null) return topicRoute(topicPath);
  const entity = parseEntityPath(trimmed);
  if (entity === undefined || entity.deadLetter || entity.management)
    return { kind: "unknown", path: trimmed };
  return { kind: "entity", name: entity.queue };
}

function topicRoute(match: RegExpExecArray): AdminRoute {
  const [, topic, subscription, rules, rule] = match as unknown as [
    string,
    string,
    string | undefined,
    string | undefined,
    string | undefined,
  ];
  if (subscription === undefined) return { kind: "subscriptions", topic };
  if (rules === undefined) return { kind: "subscription", topic, subscription };
  return rule === undefined
    ? { kind: "rules", topic, subscription }
    : { kind: "rule", topic, subscription, rule };
}
