import { formatIsoDuration } from "../../../azure/iso-duration.js";
import type { QueuePropertyName } from "../queue-description.js";
import { describeTopic, TOPIC_PROPERTY_NAMES, type TopicDescription } from "../topic-description.js";
import {
  authorizationRulesXml,
  booleanSetting,
  countDetailsXml,
  descriptionXml,
  type EntityTimes,
  flagText,
  optionalText,
  readAuthorizationRules,
  settableTexts,
  timesXml,
} from "./description-xml.js";
import type { RuntimeCounts } from "./runtime-counts.js";
import { type XmlElement, xmlText } from "./xml.js";

const TOPIC_PROPERTIES: ReadonlySet<string> = new Set(TOPIC_PROPERTY_NAMES);

/** The settings a `<TopicDescription>` gives; what it leaves out gets Azure's default. */
export function readTopicDescription(description: XmlElement): TopicDescription {
  const ordering = settableTexts<"SupportOrdering">(
    description,
    new Set(["SupportOrdering"]),
  ).SupportOrdering;
  const supportOrdering = booleanSetting("SupportOrdering", ordering, true);
  return describeTopic(
    settableTexts<QueuePropertyName>(description, TOPIC_PROPERTIES),
    supportOrdering,
    readAuthorizationRules(description),
  );
}

/** A topic's runtime fields, beside its settings: counts over its subscriptions. */
export interface TopicRuntime extends EntityTimes {
  readonly counts: RuntimeCounts;
  readonly subscriptionCount: number;
}

/**
 * A `<TopicDescription>` as Azure answers it, in Azure's order: everything the SDK's `buildTopic`
 * and `buildTopicRuntimeProperties` read.
 */
export function topicDescriptionXml(description: TopicDescription, runtime: TopicRuntime): string {
  const body =
    xmlText("DefaultMessageTimeToLive", formatIsoDuration(description.defaultMessageTimeToLiveMs)) +
    xmlText("MaxSizeInMegabytes", String(description.maxSizeInMegabytes)) +
    xmlText("RequiresDuplicateDetection", flagText(description.requiresDuplicateDetection)) +
    xmlText(
      "DuplicateDetectionHistoryTimeWindow",
      formatIsoDuration(description.duplicateDetectionHistoryTimeWindowMs),
    ) +
    xmlText("EnableBatchedOperations", flagText(description.enableBatchedOperations)) +
    xmlText("SizeInBytes", String(runtime.counts.sizeInBytes)) +
    xmlText("FilteringMessagesBeforePublishing", "false") +
    xmlText("IsAnonymousAccessible", "false") +
    authorizationRulesXml(description.authorizationRules, runtime) +
    xmlText("Status", description.status) +
    optionalText("UserMetadata", description.userMetadata) +
    timesXml(runtime) +
    xmlText("SupportOrdering", flagText(description.supportOrdering)) +
    countDetailsXml(runtime.counts) +
    xmlText("SubscriptionCount", String(runtime.subscriptionCount)) +
    xmlText("AutoDeleteOnIdle", formatIsoDuration(description.autoDeleteOnIdleMs)) +
    xmlText("EnablePartitioning", flagText(description.enablePartitioning)) +
    xmlText("IsExpress", flagText(description.enableExpress)) +
    xmlText("EntityAvailabilityStatus", "Available") +
    xmlText("EnableSubscriptionPartitioning", "false") +
    xmlText("EnableExpress", flagText(description.enableExpress)) +
    optionalText("MaxMessageSizeInKilobytes", description.maxMessageSizeInKilobytes);
  return descriptionXml("TopicDescription", body);
}
