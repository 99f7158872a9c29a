import { QueueError } from "../../../core/errors.js";
import type { AuthorizationRuleDescription } from "../queue-description.js";
import { COUNT_DETAILS_NAMESPACE, SCHEMA_INSTANCE_NAMESPACE, SERVICE_BUS_NAMESPACE } from "./atom.js";
import type { RuntimeCounts } from "./runtime-counts.js";
import { childNamed, type XmlElement, xmlElement, xmlText } from "./xml.js";

/**
 * The description an ATOM entry carries: `<entry><content><QueueDescription>` (or a topic's,
 * subscription's or rule's). A body of another shape fails with `Validation`.
 */
export function readEntryDescription(root: XmlElement): XmlElement {
  if (root.name !== "entry")
    throw new QueueError("Validation", `expected an ATOM <entry>, not <${root.name}>`);
  const description = childNamed(root, "content")?.children[0];
  if (description === undefined)
    throw new QueueError("Validation", "the <entry> has no <content> with a description in it");
  return description;
}

/** `Validation` unless a description is the element `expected`. */
export function expectDescription(description: XmlElement, expected: string): void {
  if (description.name !== expected)
    throw new QueueError("Validation", `expected a <${expected}>, not <${description.name}>`);
}

/** Whether an element says "none": `<ForwardTo i:nil="true"/>` is how .NET writes it. */
export function isNil(element: XmlElement): boolean {
  for (const [name, value] of element.attributes)
    if (name.endsWith(":nil") && value.trim() === "true") return true;
  return false;
}

/**
 * The text of each child of `description` whose name is in `settable`, nil ones left out.
 * Read-only elements a client echoes back (`SizeInBytes`, `CreatedAt`, ...) are passed over, as
 * Azure does.
 */
export function settableTexts<Name extends string>(
  description: XmlElement,
  settable: ReadonlySet<string>,
): Partial<Record<Name, string>> {
  const texts: Partial<Record<Name, string>> = {};
  for (const child of description.children)
    if (settable.has(child.name) && !isNil(child)) texts[child.name as Name] = child.text;
  return texts;
}

/** A boolean setting's text (`true` or `false`, any case), `fallback` when it is left out; else `Validation` naming it. */
export function booleanSetting(name: string, text: string | undefined, fallback: boolean): boolean {
  const value = text?.trim().toLowerCase() ?? "";
  if (value === "") return fallback;
  if (value === "true") return true;
  if (value === "false") return false;
  throw new QueueError("Validation", `${name} ${JSON.stringify(text)} is not a boolean (true or false)`);
}

/** The `<AuthorizationRules>` of a description, each with its key name, rights and keys. */
export function readAuthorizationRules(description: XmlElement): AuthorizationRuleDescription[] {
  return childNamed(description, "AuthorizationRules")?.children.map(readAuthorizationRule) ?? [];
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

/** When an entity was made, last changed and last used, as Azure shows them. */
export interface EntityTimes {
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly accessedAt: Date;
}

/** `true` or `false` as .NET writes a boolean. */
export function flagText(value: boolean): string {
  return value ? "true" : "false";
}

/** `<name>value</name>`, or nothing for a setting that is not set (Azure leaves those out). */
export function optionalText(name: string, value: string | number | undefined): string {
  return value === undefined ? "" : xmlText(name, String(value));
}

/** `<CreatedAt>`, `<UpdatedAt>` and `<AccessedAt>`, in that order. */
export function timesXml(times: EntityTimes): string {
  return (
    xmlText("CreatedAt", times.createdAt.toISOString()) +
    xmlText("UpdatedAt", times.updatedAt.toISOString()) +
    xmlText("AccessedAt", times.accessedAt.toISOString())
  );
}

/** A `<CountDetails>` element of a queue, topic or subscription. */
export function countDetailsXml(counts: RuntimeCounts): string {
  return xmlElement(
    "CountDetails",
    xmlText("d2p1:ActiveMessageCount", String(counts.active)) +
      xmlText("d2p1:DeadLetterMessageCount", String(counts.deadLetter)) +
      xmlText("d2p1:ScheduledMessageCount", String(counts.scheduled)) +
      xmlText("d2p1:TransferMessageCount", String(counts.transfer)) +
      xmlText("d2p1:TransferDeadLetterMessageCount", String(counts.transferDeadLetter)),
    // The SDK insists on exactly one attribute here, an xmlns: prefix it then reads the counts by.
    { "xmlns:d2p1": COUNT_DETAILS_NAMESPACE },
  );
}

/** The `<AuthorizationRules>` element of a queue or topic. */
export function authorizationRulesXml(
  rules: readonly AuthorizationRuleDescription[],
  times: EntityTimes,
): string {
  const each = rules.map((rule) =>
    xmlElement(
      "AuthorizationRule",
      xmlText("ClaimType", rule.claimType) +
        xmlText("ClaimValue", "None") +
        xmlElement("Rights", rule.accessRights.map((right) => xmlText("AccessRights", right)).join("")) +
        xmlText("CreatedTime", times.createdAt.toISOString()) +
        xmlText("ModifiedTime", times.updatedAt.toISOString()) +
        xmlText("KeyName", rule.keyName) +
        optionalText("PrimaryKey", rule.primaryKey) +
        optionalText("SecondaryKey", rule.secondaryKey),
      { "i:type": "SharedAccessAuthorizationRule" },
    ),
  );
  return xmlElement("AuthorizationRules", each.join(""));
}

/** A description element (`QueueDescription`, `TopicDescription`, ...) in Service Bus's namespaces. */
export function descriptionXml(element: string, body: string): string {
  return xmlElement(element, body, { xmlns: SERVICE_BUS_NAMESPACE, "xmlns:i": SCHEMA_INSTANCE_NAMESPACE });
}
