import { formatIsoDuration } from "../../../azure/iso-duration.js";
import { QueueError } from "../../../core/errors.js";
import {
  type AuthorizationRuleDescription,
  QUEUE_PROPERTY_NAMES,
  type QueueDescription,
  type QueueProperties,
  type QueuePropertyName,
} from "../queue-description.js";
import { COUNT_DETAILS_NAMESPACE, SCHEMA_INSTANCE_NAMESPACE, SERVICE_BUS_NAMESPACE } from "./atom.js";
import type { RuntimeCounts } from "./runtime-counts.js";
import { childNamed, type XmlElement, xmlElement, xmlText } from "./xml.js";

/** What the body of a PUT describes. */
export type PutBody =
  | {
      readonly kind: "queue";
      readonly properties: QueueProperties;
      readonly authorizationRules: readonly AuthorizationRuleDescription[];
    }
  /** A topic, subscription or rule description: entities this server does not serve yet. */
  | { readonly kind: "other"; readonly element: string };

const NOT_SERVED = new Set(["TopicDescription", "SubscriptionDescription", "RuleDescription"]);
const SETTABLE: ReadonlySet<string> = new Set(QUEUE_PROPERTY_NAMES);

/**
 * The description an ATOM entry carries: `<entry><content><QueueDescription>` with one element
 * per property. Read-only elements a client echoes back (`SizeInBytes`, `CreatedAt`, ...) are
 * passed over, as Azure does. A body of another shape fails with `Validation`.
 */
export function readPutBody(root: XmlElement): PutBody {
  if (root.name !== "entry")
    throw new QueueError("Validation", `expected an ATOM <entry>, not <${root.name}>`);
  const content = childNamed(root, "content");
  const description = content?.children[0];
  if (description === undefined)
    throw new QueueError("Validation", "the <entry> has no <content> with a description in it");
  if (NOT_SERVED.has(description.name)) return { kind: "other", element: description.name };
  if (description.name !== "QueueDescription")
    throw new QueueError("Validation", `expected a <QueueDescription>, not <${description.name}>`);
  const properties: Partial<Record<QueuePropertyName, string>> = {};
  let authorizationRules: AuthorizationRuleDescription[] = [];
  for (const child of description.children) {
    if (child.name === "AuthorizationRules") authorizationRules = child.children.map(readAuthorizationRule);
    else if (SETTABLE.has(child.name) && !isNil(child))
      properties[child.name as QueuePropertyName] = child.text;
  }
  return { kind: "queue", properties, authorizationRules };
}

// `<ForwardTo i:nil="true"/>` is how .NET writes "none".
function isNil(element: XmlElement): boolean {
  for (const [name, value] of element.attributes)
    if (name.endsWith(":nil") && value.trim() === "true") return true;
  return false;
}

function readAuthorizationRule(rule: XmlElement): AuthorizationRuleDescription {
  const text = (name: string): string | undefined => {
    const found = childNamed(rule, name);
    return found === undefined || found.text === "" ? undefined : found.text;
  };
  const rights = childNamed(rule, "Rights")?.children.map((right) => right.text) ?? [];
  const keyName = text("KeyName");
  if (keyName === undefined) throw new QueueError("Validation", "an AuthorizationRule needs a KeyName");
  return {
    claimType: text("ClaimType") ?? "SharedAccessKey",
    accessRights: rights,
    keyName,
    primaryKey: text("PrimaryKey"),
    secondaryKey: text("SecondaryKey"),
  };
}

/** The queue's runtime fields Azure mixes into a description, beside the settings. */
export interface QueueRuntime {
  readonly counts: RuntimeCounts;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly accessedAt: Date;
}

/**
 * A `<QueueDescription>` as Azure answers it, settings and runtime fields in Azure's order. Every
 * element the SDK's `buildQueue` and `buildQueueRuntimeProperties` require is there; a setting
 * that is not set (ForwardTo, UserMetadata, ...) is left out, as Azure does.
 */
export function queueDescriptionXml(description: QueueDescription, runtime: QueueRuntime): string {
  const flag = (value: boolean): string => (value ? "true" : "false");
  const optional = (name: string, value: string | number | undefined): string =>
    value === undefined ? "" : xmlText(name, String(value));
  const { counts } = runtime;
  const countDetails = xmlElement(
    "CountDetails",
    xmlText("d2p1:ActiveMessageCount", String(counts.active)) +
      xmlText("d2p1:DeadLetterMessageCount", String(counts.deadLetter)) +
      xmlText("d2p1:ScheduledMessageCount", String(counts.scheduled)) +
      xmlText("d2p1:TransferMessageCount", String(counts.transfer)) +
      xmlText("d2p1:TransferDeadLetterMessageCount", String(counts.transferDeadLetter)),
    // The SDK insists on exactly one attribute here, an xmlns: prefix it then reads the counts by.
    { "xmlns:d2p1": COUNT_DETAILS_NAMESPACE },
  );
  const rules = description.authorizationRules.map((rule) =>
    xmlElement(
      "AuthorizationRule",
      xmlText("ClaimType", rule.claimType) +
        xmlText("ClaimValue", "None") +
        xmlElement("Rights", rule.accessRights.map((right) => xmlText("AccessRights", right)).join("")) +
        xmlText("CreatedTime", runtime.createdAt.toISOString()) +
        xmlText("ModifiedTime", runtime.updatedAt.toISOString()) +
        xmlText("KeyName", rule.keyName) +
        optional("PrimaryKey", rule.primaryKey) +
        optional("SecondaryKey", rule.secondaryKey),
      { "i:type": "SharedAccessAuthorizationRule" },
    ),
  );
  const body =
    xmlText("LockDuration", formatIsoDuration(description.lockDurationMs)) +
    xmlText("MaxSizeInMegabytes", String(description.maxSizeInMegabytes)) +
    xmlText("RequiresDuplicateDetection", flag(description.requiresDuplicateDetection)) +
    xmlText("RequiresSession", flag(description.requiresSession)) +
    xmlText("DefaultMessageTimeToLive", formatIsoDuration(description.defaultMessageTimeToLiveMs)) +
    xmlText("DeadLetteringOnMessageExpiration", flag(description.deadLetteringOnMessageExpiration)) +
    xmlText(
      "DuplicateDetectionHistoryTimeWindow",
      formatIsoDuration(description.duplicateDetectionHistoryTimeWindowMs),
    ) +
    xmlText("MaxDeliveryCount", String(description.maxDeliveryCount)) +
    xmlText("EnableBatchedOperations", flag(description.enableBatchedOperations)) +
    xmlText("SizeInBytes", String(counts.sizeInBytes)) +
    xmlText("MessageCount", String(counts.total)) +
    xmlText("IsAnonymousAccessible", "false") +
    xmlElement("AuthorizationRules", rules.join("")) +
    xmlText("Status", description.status) +
    optional("ForwardTo", description.forwardTo) +
    optional("UserMetadata", description.userMetadata) +
    xmlText("CreatedAt", runtime.createdAt.toISOString()) +
    xmlText("UpdatedAt", runtime.updatedAt.toISOString()) +
    xmlText("AccessedAt", runtime.accessedAt.toISOString()) +
    xmlText("SupportOrdering", "true") +
    countDetails +
    xmlText("AutoDeleteOnIdle", formatIsoDuration(description.autoDeleteOnIdleMs)) +
    xmlText("EnablePartitioning", flag(description.enablePartitioning)) +
    xmlText("EntityAvailabilityStatus", "Available") +
    optional("ForwardDeadLetteredMessagesTo", description.forwardDeadLetteredMessagesTo) +
    xmlText("EnableExpress", flag(description.enableExpress)) +
    optional("MaxMessageSizeInKilobytes", description.maxMessageSizeInKilobytes);
  return xmlElement("QueueDescription", body, {
    xmlns: SERVICE_BUS_NAMESPACE,
    "xmlns:i": SCHEMA_INSTANCE_NAMESPACE,
  });
}
