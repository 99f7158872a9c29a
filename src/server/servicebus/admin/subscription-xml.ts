import { formatIsoDuration } from "../../../azure/iso-duration.js";
import type { SubscriptionRule } from "../../../core/topics.js";
import type { QueueDescription, QueueProperties, QueuePropertyName } from "../queue-description.js";
import { SUBSCRIPTION_PROPERTY_NAMES } from "../topic-description.js";
import {
  booleanSetting,
  countDetailsXml,
  descriptionXml,
  type EntityTimes,
  flagText,
  optionalText,
  settableTexts,
  timesXml,
} from "./description-xml.js";
import { readRuleDescription } from "./rule-xml.js";
import type { RuntimeCounts } from "./runtime-counts.js";
import { childNamed, type XmlElement, xmlText } from "./xml.js";

const SUBSCRIPTION_PROPERTIES: ReadonlySet<string> = new Set(SUBSCRIPTION_PROPERTY_NAMES);

const FILTER_EXCEPTIONS = "DeadLetteringOnFilterEvaluationExceptions";

/** What the `<SubscriptionDescription>` of a PUT sets. */
export interface SubscriptionPut {
  readonly properties: QueueProperties;
  /** Kept and shown; the engine's filters raise no exceptions to dead-letter for. */
  readonly deadLetteringOnFilterEvaluationExceptions: boolean;
  /** The rule a create gives the subscription instead of `$Default` matching everything. */
  readonly defaultRule: SubscriptionRule | undefined;
}

/** The settings a `<SubscriptionDescription>` gives, and its `<DefaultRuleDescription>`. */
export function readSubscriptionDescription(description: XmlElement): SubscriptionPut {
  const exceptions = settableTexts<string>(description, new Set([FILTER_EXCEPTIONS]))[FILTER_EXCEPTIONS];
  const rule = childNamed(description, "DefaultRuleDescription");
  return {
    properties: settableTexts<QueuePropertyName>(description, SUBSCRIPTION_PROPERTIES),
    deadLetteringOnFilterEvaluationExceptions: booleanSetting(FILTER_EXCEPTIONS, exceptions, true),
    defaultRule: rule === undefined ? undefined : readRuleDescription(rule),
  };
}

/** A subscription's runtime fields beside its settings. */
export interface SubscriptionRuntime extends EntityTimes {
  readonly counts: RuntimeCounts;
  readonly deadLetteringOnFilterEvaluationExceptions: boolean;
}

/**
 * A `<SubscriptionDescription>` as Azure answers it, in Azure's order: everything the SDK's
 * `buildSubscription` and `buildSubscriptionRuntimeProperties` read.
 */
export function subscriptionDescriptionXml(
  description: QueueDescription,
  runtime: SubscriptionRuntime,
): string {
  const body =
    xmlText("LockDuration", formatIsoDuration(description.lockDurationMs)) +
    xmlText("RequiresSession", flagText(description.requiresSession)) +
    xmlText("DefaultMessageTimeToLive", formatIsoDuration(description.defaultMessageTimeToLiveMs)) +
    xmlText("DeadLetteringOnMessageExpiration", flagText(description.deadLetteringOnMessageExpiration)) +
    xmlText(FILTER_EXCEPTIONS, flagText(runtime.deadLetteringOnFilterEvaluationExceptions)) +
    xmlText("MessageCount", String(runtime.counts.total)) +
    xmlText("MaxDeliveryCount", String(description.maxDeliveryCount)) +
    xmlText("EnableBatchedOperations", flagText(description.enableBatchedOperations)) +
    xmlText("Status", description.status) +
    optionalText("ForwardTo", description.forwardTo) +
    timesXml(runtime) +
    countDetailsXml(runtime.counts) +
    optionalText("UserMetadata", description.userMetadata) +
    optionalText("ForwardDeadLetteredMessagesTo", description.forwardDeadLetteredMessagesTo) +
    xmlText("AutoDeleteOnIdle", formatIsoDuration(description.autoDeleteOnIdleMs)) +
    xmlText("EntityAvailabilityStatus", "Available");
  return descriptionXml("SubscriptionDescription", body);
}
