import { formatIsoDuration } from "../../../azure/iso-duration.js";
import {
  type AuthorizationRuleDescription,
  QUEUE_PROPERTY_NAMES,
  type QueueDescription,
  type QueueProperties,
  type QueuePropertyName,
} from "../queue-description.js";
import {
  authorizationRulesXml,
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

/** What the `<QueueDescription>` of a PUT sets. */
export interface QueuePut {
  readonly properties: QueueProperties;
  readonly authorizationRules: readonly AuthorizationRuleDescription[];
}

const SETTABLE: ReadonlySet<string> = new Set(QUEUE_PROPERTY_NAMES);

/** The settings a `<QueueDescription>` gives, one element per property. */
export function readQueueDescription(description: XmlElement): QueuePut {
  return {
    properties: settableTexts<QueuePropertyName>(description, SETTABLE),
    authorizationRules: readAuthorizationRules(description),
  };
}

/** The queue's runtime fields Azure mixes into a description, beside the settings. */
export interface QueueRuntime extends EntityTimes {
  readonly counts: RuntimeCounts;
}

/**
 * A `<QueueDescription>` as Azure answers it, settings and runtime fields in Azure's order. Every
 * element the SDK's `buildQueue` and `buildQueueRuntimeProperties` require is there; a setting
 * that is not set (ForwardTo, UserMetadata, ...) is left out, as Azure does.
 */
export function queueDescriptionXml(description: QueueDescription, runtime: QueueRuntime): string {
  const { counts } = runtime;
  const body =
    xmlText("LockDuration", formatIsoDuration(description.lockDurationMs)) +
    xmlText("MaxSizeInMegabytes", String(description.maxSizeInMegabytes)) +
    xmlText("RequiresDuplicateDetection", flagText(description.requiresDuplicateDetection)) +
    xmlText("RequiresSession", flagText(description.requiresSession)) +
    xmlText("DefaultMessageTimeToLive", formatIsoDuration(description.defaultMessageTimeToLiveMs)) +
    xmlText("DeadLetteringOnMessageExpiration", flagText(description.deadLetteringOnMessageExpiration)) +
    xmlText(
      "DuplicateDetectionHistoryTimeWindow",
      formatIsoDuration(description.duplicateDetectionHistoryTimeWindowMs),
    ) +
    xmlText("MaxDeliveryCount", String(description.maxDeliveryCount)) +
    xmlText("EnableBatchedOperations", flagText(description.enableBatchedOperations)) +
    xmlText("SizeInBytes", String(counts.sizeInBytes)) +
    xmlText("MessageCount", String(counts.total)) +
    xmlText("IsAnonymousAccessible", "false") +
    authorizationRulesXml(description.authorizationRules, runtime) +
    xmlText("Status", description.status) +
    optionalText("ForwardTo", description.forwardTo) +
    optionalText("UserMetadata", description.userMetadata) +
    timesXml(runtime) +
    xmlText("SupportOrdering", "true") +
    countDetailsXml(counts) +
    xmlText("AutoDeleteOnIdle", formatIsoDuration(description.autoDeleteOnIdleMs)) +
    xmlText("EnablePartitioning", flagText(description.enablePartitioning)) +
    xmlText("EntityAvailabilityStatus", "Available") +
    optionalText("ForwardDeadLetteredMessagesTo", description.forwardDeadLetteredMessagesTo) +
    xmlText("EnableExpress", flagText(description.enableExpress)) +
    optionalText("MaxMessageSizeInKilobytes", description.maxMessageSizeInKilobytes);
  return descriptionXml("QueueDescription", body);
}
