import type { TopicRecord } from "../../rules/topic-records.js";
import {
  type AuthorizationRuleDescription,
  AZURE_QUEUE_DEFAULTS,
  describeQueue,
  type QueueDescription,
  type QueueProperties,
  type QueuePropertyName,
  UPDATED_AT_PROPERTY,
} from "./queue-description.js";

/** The settings a topic shares with a queue, as Azure names them in a `TopicDescription`. */
export const TOPIC_QUEUE_SETTINGS = [
  "defaultMessageTimeToLiveMs",
  "maxSizeInMegabytes",
  "requiresDuplicateDetection",
  "duplicateDetectionHistoryTimeWindowMs",
  "enableBatchedOperations",
  "authorizationRules",
  "status",
  "userMetadata",
  "autoDeleteOnIdleMs",
  "enablePartitioning",
  "enableExpress",
  "maxMessageSizeInKilobytes",
] as const satisfies readonly (keyof QueueDescription)[];

/** A topic's settings as Azure describes them: a queue's that apply to a topic, and `SupportOrdering`. */
export type TopicDescription = Pick<QueueDescription, (typeof TOPIC_QUEUE_SETTINGS)[number]> & {
  readonly supportOrdering: boolean;
};

/** The queue properties a topic takes (Azure's `TopicDescription` has `SupportOrdering` beside them). */
export const TOPIC_PROPERTY_NAMES = [
  "DefaultMessageTimeToLive",
  "MaxSizeInMegabytes",
  "RequiresDuplicateDetection",
  "DuplicateDetectionHistoryTimeWindow",
  "EnableBatchedOperations",
  "Status",
  "UserMetadata",
  "AutoDeleteOnIdle",
  "EnablePartitioning",
  "EnableExpress",
  "MaxMessageSizeInKilobytes",
] as const satisfies readonly QueuePropertyName[];

/** The queue properties a subscription takes (its `SubscriptionDescription` has `DeadLetteringOnFilterEvaluationExceptions` too). */
export const SUBSCRIPTION_PROPERTY_NAMES = [
  "LockDuration",
  "RequiresSession",
  "DefaultMessageTimeToLive",
  "DeadLetteringOnMessageExpiration",
  "MaxDeliveryCount",
  "EnableBatchedOperations",
  "Status",
  "ForwardTo",
  "UserMetadata",
  "ForwardDeadLetteredMessagesTo",
  "AutoDeleteOnIdle",
] as const satisfies readonly QueuePropertyName[];

/** Where a topic keeps its description, as JSON, among its record's properties. */
const DESCRIPTION_PROPERTY = "servicebus:TopicDescription";

/**
 * A complete topic description from the properties a client gave (queue property names, the
 * ones a topic has), Azure's defaults for the rest; bad values fail with `Validation` naming them.
 */
export function describeTopic(
  properties: QueueProperties,
  supportOrdering: boolean,
  authorizationRules: readonly AuthorizationRuleDescription[],
): TopicDescription {
  return { ...pickTopicSettings(describeQueue(properties, authorizationRules)), supportOrdering };
}

function pickTopicSettings(description: QueueDescription): Omit<TopicDescription, "supportOrdering"> {
  const picked: Partial<Record<keyof QueueDescription, unknown>> = {};
  for (const key of TOPIC_QUEUE_SETTINGS) picked[key] = description[key];
  return picked as Omit<TopicDescription, "supportOrdering">;
}

/** The properties a topic record keeps its description in, noting `now` as its last change. */
export function topicProperties(description: TopicDescription, now: number): Record<string, string> {
  return { [DESCRIPTION_PROPERTY]: JSON.stringify(description), [UPDATED_AT_PROPERTY]: String(now) };
}

/**
 * How Azure describes an engine topic: the description kept with it, else Azure's defaults (a
 * topic made elsewhere, by a Config.json or the client API); the time to live is always the
 * engine's, which applies it.
 */
export function describeTopicRecord(record: TopicRecord): TopicDescription {
  const fallback: TopicDescription = { ...pickTopicSettings(AZURE_QUEUE_DEFAULTS), supportOrdering: true };
  const kept = record.properties?.[DESCRIPTION_PROPERTY];
  let stored: Partial<TopicDescription> = {};
  if (kept !== undefined)
    try {
      stored = JSON.parse(kept) as Partial<TopicDescription>;
    } catch {
      // Written by topicProperties only; a hand-edited store shows defaults rather than failing.
    }
  return { ...fallback, ...stored, defaultMessageTimeToLiveMs: record.defaultTimeToLiveMs };
}
