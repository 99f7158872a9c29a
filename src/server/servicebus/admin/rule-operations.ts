import type { SubscriptionRule } from "../../../core/topics.js";
import type { FoundSubscription } from "../topic-entities.js";
import {
  type AdminAnswer,
  type AdminContext,
  DELETED,
  type EntityEntry,
  entityExists,
  entityNotFound,
  entryAnswer,
  feedAnswer,
} from "./admin-answers.js";
import { ruleDescriptionXml } from "./rule-xml.js";
import { requireSubscription, subscriptionEntityPath } from "./subscription-operations.js";

function rulePath(found: FoundSubscription, rule: string): string {
  return `${subscriptionEntityPath(found.topic.name, found.record.name)}/Rules/${rule}`;
}

/** A rule as an entry; `undefined` for one whose filter Service Bus cannot describe (an SNS filter policy). */
function ruleEntry(found: FoundSubscription, rule: SubscriptionRule): EntityEntry | undefined {
  // The engine does not note when a rule was made: its subscription's creation is the nearest it knows.
  const createdAt = new Date(found.record.createdAt);
  const content = ruleDescriptionXml(rule, createdAt);
  if (content === undefined) return undefined;
  return { path: rulePath(found, rule.name), title: rule.name, createdAt, updatedAt: createdAt, content };
}

/** The rule of a subscription a name means (exactly, else in any case), or 404. */
function requireRule(context: AdminContext, found: FoundSubscription, name: string): SubscriptionRule {
  const lower = name.toLowerCase();
  const rule =
    found.record.rules.find((one) => one.name === name) ??
    found.record.rules.find((one) => one.name.toLowerCase() === lower);
  if (rule === undefined || ruleEntry(found, rule) === undefined)
    throw entityNotFound(context, rulePath(found, name));
  return rule;
}

function ruleAnswer(
  context: AdminContext,
  found: FoundSubscription,
  rule: SubscriptionRule,
  status: number,
): AdminAnswer {
  const entry = ruleEntry(found, rule);
  if (entry === undefined) throw entityNotFound(context, rulePath(found, rule.name));
  return entryAnswer(context, entry, status);
}

/** `GET /<topic>/Subscriptions/<subscription>/Rules/<rule>`: the rule's filter and action. */
export function getRule(
  context: AdminContext,
  topic: string,
  subscription: string,
  name: string,
): AdminAnswer {
  const found = requireSubscription(context, topic, subscription);
  return ruleAnswer(context, found, requireRule(context, found, name), 200);
}

/**
 * `PUT .../Rules/<rule>` without `If-Match`: adds the rule (checked by `readRuleDescription`);
 * 409 when the subscription has a rule of that name in any case.
 */
export function createRule(
  context: AdminContext,
  topic: string,
  subscription: string,
  rule: SubscriptionRule,
): AdminAnswer {
  const { engine } = context;
  const found = engine.transaction(() => {
    const found = requireSubscription(context, topic, subscription);
    const lower = rule.name.toLowerCase();
    if (found.record.rules.some((one) => one.name.toLowerCase() === lower))
      throw entityExists(context, rulePath(found, rule.name));
    engine.topics.createRule(found.topic.name, found.record.name, rule.name, rule.filter);
    return found;
  });
  return ruleAnswer(context, found, rule, 201);
}

/** `PUT .../Rules/<rule>` with `If-Match: *`: replaces the rule's filter; 404 when there is no such rule. */
export function updateRule(
  context: AdminContext,
  topic: string,
  subscription: string,
  rule: SubscriptionRule,
): AdminAnswer {
  const { engine } = context;
  const [found, replaced] = engine.transaction(() => {
    const found = requireSubscription(context, topic, subscription);
    const existing = requireRule(context, found, rule.name);
    const replaced = { name: existing.name, filter: rule.filter };
    engine.topics.deleteRule(found.topic.name, found.record.name, existing.name);
    engine.topics.createRule(found.topic.name, found.record.name, replaced.name, replaced.filter);
    return [found, replaced] as const;
  });
  return ruleAnswer(context, found, replaced, 200);
}

/** `DELETE .../Rules/<rule>`: removes the rule; with none left the subscription receives nothing, as on Azure. */
export function deleteRule(
  context: AdminContext,
  topic: string,
  subscription: string,
  name: string,
): AdminAnswer {
  const found = requireSubscription(context, topic, subscription);
  const rule = requireRule(context, found, name);
  context.engine.topics.deleteRule(found.topic.name, found.record.name, rule.name);
  return DELETED;
}

/** `GET /<topic>/Subscriptions/<subscription>/Rules?$skip=&$top=`: a page of its rules, sorted by name. */
export function listRules(
  context: AdminContext,
  topic: string,
  subscription: string,
  query: URLSearchParams,
): AdminAnswer {
  const found = requireSubscription(context, topic, subscription);
  const rules = context.engine.topics
    .listRules(found.topic.name, found.record.name)
    .filter((rule) => ruleEntry(found, rule) !== undefined);
  return feedAnswer(
    context,
    `${subscriptionEntityPath(found.topic.name, found.record.name)}/Rules`,
    "Rules",
    rules,
    query,
    (rule) => ruleEntry(found, rule)!,
  );
}
