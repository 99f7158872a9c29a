import type { IncomingHttpHeaders } from "node:http";
import { QueueError } from "../../../core/errors.js";
import { findServiceBusQueue } from "../entities.js";
import { describeQueue } from "../queue-description.js";
import type { SasKey } from "../sas.js";
import { findTopic } from "../topic-entities.js";
import type { AdminAnswer, AdminContext } from "./admin-answers.js";
import { authorizeForwarding } from "./authorization.js";
import { expectDescription, readEntryDescription } from "./description-xml.js";
import { namespaceInfo } from "./namespace-info.js";
import { createQueue, deleteQueue, getQueue, listQueues, updateQueue } from "./queue-operations.js";
import { readQueueDescription } from "./queue-xml.js";
import type { AdminRoute } from "./routes.js";
import { createRule, deleteRule, getRule, listRules, updateRule } from "./rule-operations.js";
import { readRuleDescription } from "./rule-xml.js";
import {
  createSubscription,
  deleteSubscription,
  getSubscription,
  listSubscriptions,
  updateSubscription,
} from "./subscription-operations.js";
import { readSubscriptionDescription } from "./subscription-xml.js";
import { createTopic, deleteTopic, getTopic, listTopics, updateTopic } from "./topic-operations.js";
import { readTopicDescription } from "./topic-xml.js";
import { parseXml, type XmlElement } from "./xml.js";

/** One request as the operations need it. */
export interface AdminRequest {
  readonly method: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  /** The key forwarding tokens are checked against; `null` with `--no-auth`. */
  readonly sasKey: SasKey | null;
  readonly now: number;
}

/** Answers a request to any route but the health check: the operation its path and method name. */
export function dispatch(
  context: AdminContext,
  route: Exclude<AdminRoute, { kind: "health" }>,
  request: AdminRequest,
): AdminAnswer {
  const { method } = request;
  switch (route.kind) {
    case "namespace":
      only(method, "GET", "$namespaceinfo");
      return namespaceInfo(context);
    case "queues":
      only(method, "GET", "$Resources/Queues");
      return listQueues(context, request.query);
    case "topics":
      only(method, "GET", "$Resources/Topics");
      return listTopics(context, request.query);
    case "unknown":
      throw new QueueError("QueueNotFound", `The messaging entity '${route.path}' could not be found.`);
    case "entity":
      return entity(context, route.name, request);
    case "subscriptions":
      only(method, "GET", route.topic);
      return listSubscriptions(context, route.topic, request.query);
    case "subscription":
      return subscription(context, route.topic, route.subscription, request);
    case "rules":
      only(method, "GET", route.subscription);
      return listRules(context, route.topic, route.subscription, request.query);
    case "rule":
      return rule(context, route, request);
  }
}

/** `/<name>`: a queue or a topic, which the stored entity or the PUT's description tells. */
function entity(context: AdminContext, name: string, request: AdminRequest): AdminAnswer {
  const { engine } = context;
  const topic = () => findTopic(engine, name);
  switch (request.method) {
    case "GET": {
      const found = findServiceBusQueue(engine, name) === undefined ? topic() : undefined;
      return found === undefined ? getQueue(context, name) : getTopic(context, found);
    }
    case "DELETE": {
      const found = findServiceBusQueue(engine, name) === undefined ? topic() : undefined;
      return found === undefined ? deleteQueue(context, name) : deleteTopic(context, found);
    }
    case "PUT": {
      const description = descriptionOf(request);
      const update = isUpdate(request);
      if (description.name === "TopicDescription")
        return update
          ? updateTopic(context, name, readTopicDescription(description))
          : createTopic(context, name, readTopicDescription(description));
      expectDescription(description, "QueueDescription");
      const put = readQueueDescription(description);
      const queue = describeQueue(put.properties, put.authorizationRules);
      checkForwarding(request, queue.forwardTo, queue.forwardDeadLetteredMessagesTo);
      return update ? updateQueue(context, name, queue) : createQueue(context, name, queue);
    }
    default:
      throw notAllowed(request.method, name);
  }
}

function subscription(
  context: AdminContext,
  topic: string,
  name: string,
  request: AdminRequest,
): AdminAnswer {
  switch (request.method) {
    case "GET":
      return getSubscription(context, topic, name);
    case "DELETE":
      return deleteSubscription(context, topic, name);
    case "PUT": {
      const description = descriptionOf(request);
      expectDescription(description, "SubscriptionDescription");
      const put = readSubscriptionDescription(description);
      checkForwarding(request, put.properties.ForwardTo, put.properties.ForwardDeadLetteredMessagesTo);
      return isUpdate(request)
        ? updateSubscription(context, topic, name, put)
        : createSubscription(context, topic, name, put);
    }
    default:
      throw notAllowed(request.method, name);
  }
}

function rule(
  context: AdminContext,
  route: Extract<AdminRoute, { kind: "rule" }>,
  request: AdminRequest,
): AdminAnswer {
  const { topic, subscription, rule: name } = route;
  switch (request.method) {
    case "GET":
      return getRule(context, topic, subscription, name);
    case "DELETE":
      return deleteRule(context, topic, subscription, name);
    case "PUT": {
      const description = descriptionOf(request);
      expectDescription(description, "RuleDescription");
      const parsed = readRuleDescription(description, name);
      return isUpdate(request)
        ? updateRule(context, topic, subscription, parsed)
        : createRule(context, topic, subscription, parsed);
    }
    default:
      throw notAllowed(request.method, name);
  }
}

function descriptionOf(request: AdminRequest): XmlElement {
  return readEntryDescription(parseXml(request.body.toString("utf8")));
}

// The SDK sends `If-Match: *` on an update and nothing on a create.
function isUpdate(request: AdminRequest): boolean {
  return request.headers["if-match"] !== undefined;
}

/** The SDK proves access to a forwarding target with a token of its own in these headers. */
function checkForwarding(
  request: AdminRequest,
  forwardTo: string | number | boolean | undefined,
  forwardDeadLettersTo: string | number | boolean | undefined,
): void {
  if (request.sasKey === null) return;
  const checks: [string | string[] | undefined, string | number | boolean | undefined][] = [
    [request.headers.servicebussupplementaryauthorization, forwardTo],
    [request.headers.servicebusdlqsupplementaryauthorization, forwardDeadLettersTo],
  ];
  for (const [token, target] of checks)
    if (typeof token === "string" && typeof target === "string" && target !== "")
      authorizeForwarding(token, request.sasKey, target, request.now);
}

function only(method: string, allowed: string, path: string): void {
  if (method !== allowed) throw notAllowed(method, path);
}

/** 405 for a method a path does not take. */
export function notAllowed(method: string, path: string): QueueError {
  return new QueueError("Unsupported", `The method ${method} is not allowed on '${path}'.`);
}
