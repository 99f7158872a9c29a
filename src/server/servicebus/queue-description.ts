import { formatIsoDuration, parseIsoDuration } from "../../azure/iso-duration.js";
import type { QueueOptions } from "../../core/admin.js";
import { QueueError, type QueueErrorCode } from "../../core/errors.js";
import type { QueueEngine } from "../../engine/queue-engine.js";
import { deadLetterQueueName } from "../../rules/dead-letters.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import { queueRecord } from "../../rules/queue-records.js";

/** The statuses a client may give a queue. */
export const ENTITY_STATUSES = ["Active", "Disabled", "SendDisabled", "ReceiveDisabled"] as const;

/** Whether a queue takes sends and receives (kept, not enforced by the engine). */
export type EntityStatus = (typeof ENTITY_STATUSES)[number];

/** A shared access rule a client attached to a queue (kept and returned; the server checks only its own key). */
export interface AuthorizationRuleDescription {
  readonly claimType: string;
  readonly accessRights: readonly string[];
  readonly keyName: string;
  readonly primaryKey?: string | undefined;
  readonly secondaryKey?: string | undefined;
}

/** A queue's settings as Azure describes them; durations in ms, `null` for forever. */
export interface QueueDescription {
  readonly lockDurationMs: number;
  readonly maxSizeInMegabytes: number;
  readonly requiresDuplicateDetection: boolean;
  readonly requiresSession: boolean;
  readonly defaultMessageTimeToLiveMs: number | null;
  readonly deadLetteringOnMessageExpiration: boolean;
  readonly duplicateDetectionHistoryTimeWindowMs: number;
  /** Deliveries before a message is dead-lettered; {@link MAX_INT32} when the engine never counts. */
  readonly maxDeliveryCount: number;
  readonly enableBatchedOperations: boolean;
  readonly authorizationRules: readonly AuthorizationRuleDescription[];
  readonly status: EntityStatus;
  readonly forwardTo: string | undefined;
  readonly userMetadata: string | undefined;
  readonly autoDeleteOnIdleMs: number | null;
  readonly enablePartitioning: boolean;
  readonly forwardDeadLetteredMessagesTo: string | undefined;
  readonly enableExpress: boolean;
  readonly maxMessageSizeInKilobytes: number | undefined;
}

/** The settable QueueDescription properties, in the order Azure writes them. */
export const QUEUE_PROPERTY_NAMES = [
  "LockDuration",
  "MaxSizeInMegabytes",
  "RequiresDuplicateDetection",
  "RequiresSession",
  "DefaultMessageTimeToLive",
  "DeadLetteringOnMessageExpiration",
  "DuplicateDetectionHistoryTimeWindow",
  "MaxDeliveryCount",
  "EnableBatchedOperations",
  "Status",
  "ForwardTo",
  "UserMetadata",
  "AutoDeleteOnIdle",
  "EnablePartitioning",
  "ForwardDeadLetteredMessagesTo",
  "EnableExpress",
  "MaxMessageSizeInKilobytes",
] as const;

/** A settable QueueDescription property. */
export type QueuePropertyName = (typeof QUEUE_PROPERTY_NAMES)[number];

/** Properties as a request or a file gives them: XML text, or JSON booleans, numbers and strings. */
export type QueueProperties = Readonly<Partial<Record<QueuePropertyName, string | number | boolean>>>;

/** .NET's `int.MaxValue`: the largest count Azure takes, and what it shows for "no limit". */
export const MAX_INT32 = 2_147_483_647;

/** What Azure gives a queue created without settings of its own. */
export const AZURE_QUEUE_DEFAULTS: QueueDescription = Object.freeze({
  lockDurationMs: 60_000,
  maxSizeInMegabytes: 1_024,
  requiresDuplicateDetection: false,
  requiresSession: false,
  defaultMessageTimeToLiveMs: null,
  deadLetteringOnMessageExpiration: false,
  duplicateDetectionHistoryTimeWindowMs: 600_000,
  maxDeliveryCount: 10,
  enableBatchedOperations: true,
  authorizationRules: [],
  status: "Active",
  forwardTo: undefined,
  userMetadata: undefined,
  autoDeleteOnIdleMs: null,
  enablePartitioning: false,
  forwardDeadLetteredMessagesTo: undefined,
  enableExpress: false,
  maxMessageSizeInKilobytes: undefined,
});

/** Where Service Bus settings the engine does not read are kept in `QueueRecord.properties`. */
export const SERVICE_BUS_PROPERTY_PREFIX = "servicebus:";

/** The `servicebus:` property that notes when an entity's settings last changed (ms). */
export const UPDATED_AT_PROPERTY = "servicebus:UpdatedAt";

const KEY = {
  maxSizeInMegabytes: "servicebus:MaxSizeInMegabytes",
  duplicateDetectionHistoryTimeWindow: "servicebus:DuplicateDetectionHistoryTimeWindow",
  maxDeliveryCount: "servicebus:MaxDeliveryCount",
  enableBatchedOperations: "servicebus:EnableBatchedOperations",
  authorizationRules: "servicebus:AuthorizationRules",
  status: "servicebus:Status",
  forwardTo: "servicebus:ForwardTo",
  userMetadata: "servicebus:UserMetadata",
  autoDeleteOnIdle: "servicebus:AutoDeleteOnIdle",
  enablePartitioning: "servicebus:EnablePartitioning",
  forwardDeadLetteredMessagesTo: "servicebus:ForwardDeadLetteredMessagesTo",
  enableExpress: "servicebus:EnableExpress",
  maxMessageSizeInKilobytes: "servicebus:MaxMessageSizeInKilobytes",
  updatedAt: UPDATED_AT_PROPERTY,
} as const;

// The engine's own limits (src/rules/queue-defaults.ts): past them a count or time to live means "never".
const ENGINE_MAX_DELIVERY_COUNT = 1_000_000;
const ENGINE_MAX_DURATION_MS = 100 * 365 * 24 * 3_600_000;
const ENGINE_MAX_LOCK_MS = 12 * 3_600_000;
const MAX_USER_METADATA = 1_024;
const MAX_NAME_LENGTH = 260;
// Azure's rule for entity names: letters, digits, '.', '-', '_' and '/', starting and ending with a letter or digit.
const QUEUE_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9._\-/]*[A-Za-z0-9])?$/;

/** Throws `Validation` (or `code`) unless `name` is a queue name Azure accepts. */
export function validateServiceBusQueueName(name: string, code: QueueErrorCode = "Validation"): void {
  if (name.length === 0 || name.length > MAX_NAME_LENGTH)
    throw new QueueError(
      code,
      `queue name ${JSON.stringify(name)} must be 1 to ${MAX_NAME_LENGTH} characters long`,
    );
  if (!QUEUE_NAME.test(name) || name.includes("//"))
    throw new QueueError(
      code,
      `queue name ${JSON.stringify(name)} may hold only letters, digits, '.', '-', '_' and '/', and must start and end with a letter or digit`,
    );
}

/**
 * A complete description from the properties a client or a file gave; what it leaves out gets
 * Azure's default (an update replaces every setting, as on Azure). Bad values fail with
 * `Validation` (or `code`), the message naming the property and the value.
 */
export function describeQueue(
  properties: QueueProperties,
  authorizationRules: readonly AuthorizationRuleDescription[] = [],
  code: QueueErrorCode = "Validation",
): QueueDescription {
  const read = new PropertyReader(properties, code);
  const defaults = AZURE_QUEUE_DEFAULTS;
  const requiresDuplicateDetection = read.boolean(
    "RequiresDuplicateDetection",
    defaults.requiresDuplicateDetection,
  );
  return {
    lockDurationMs: read.duration("LockDuration", defaults.lockDurationMs, 1, ENGINE_MAX_LOCK_MS)!,
    maxSizeInMegabytes: read.integer("MaxSizeInMegabytes", defaults.maxSizeInMegabytes, 1, MAX_INT32),
    requiresDuplicateDetection,
    requiresSession: read.boolean("RequiresSession", defaults.requiresSession),
    defaultMessageTimeToLiveMs: foreverPastEngineLimit(
      read.duration(
        "DefaultMessageTimeToLive",
        defaults.defaultMessageTimeToLiveMs,
        1,
        Number.MAX_SAFE_INTEGER,
        true,
      ),
    ),
    deadLetteringOnMessageExpiration: read.boolean(
      "DeadLetteringOnMessageExpiration",
      defaults.deadLetteringOnMessageExpiration,
    ),
    duplicateDetectionHistoryTimeWindowMs: read.duration(
      "DuplicateDetectionHistoryTimeWindow",
      defaults.duplicateDetectionHistoryTimeWindowMs,
      1,
      ENGINE_MAX_DURATION_MS,
    )!,
    maxDeliveryCount: read.integer("MaxDeliveryCount", defaults.maxDeliveryCount, 1, MAX_INT32),
    enableBatchedOperations: read.boolean("EnableBatchedOperations", defaults.enableBatchedOperations),
    authorizationRules,
    status: read.status(),
    forwardTo: read.text("ForwardTo", 2_048),
    userMetadata: read.text("UserMetadata", MAX_USER_METADATA),
    autoDeleteOnIdleMs: read.duration(
      "AutoDeleteOnIdle",
      defaults.autoDeleteOnIdleMs,
      1,
      Number.MAX_SAFE_INTEGER,
      true,
    ),
    enablePartitioning: read.boolean("EnablePartitioning", defaults.enablePartitioning),
    forwardDeadLetteredMessagesTo: read.text("ForwardDeadLetteredMessagesTo", 2_048),
    enableExpress: read.boolean("EnableExpress", defaults.enableExpress),
    maxMessageSizeInKilobytes: read.optionalInteger("MaxMessageSizeInKilobytes", 1, MAX_INT32),
  };
}

// A time to live past the engine's 100 years is forever in all but name: said so at once, a get shows what the engine keeps.
function foreverPastEngineLimit(ms: number | null): number | null {
  return ms === null || ms > ENGINE_MAX_DURATION_MS ? null : ms;
}

/** Reads typed values out of properties, each with its default; empty text counts as left out. */
class PropertyReader {
  constructor(
    private readonly properties: QueueProperties,
    private readonly code: QueueErrorCode,
  ) {}

  #given(name: QueuePropertyName): string | number | boolean | undefined {
    const value = this.properties[name];
    return typeof value === "string" && value.trim() === "" ? undefined : value;
  }

  #fail(name: QueuePropertyName, value: unknown, why: string): QueueError {
    return new QueueError(this.code, `${name} ${JSON.stringify(value)} ${why}`);
  }

  boolean(name: QueuePropertyName, fallback: boolean): boolean {
    const value = this.#given(name);
    if (value === undefined) return fallback;
    if (typeof value === "boolean") return value;
    const text = String(value).trim().toLowerCase();
    if (text === "true" || text === "1") return true;
    if (text === "false" || text === "0") return false;
    throw this.#fail(name, value, "is not a boolean (true or false)");
  }

  optionalInteger(name: QueuePropertyName, min: number, max: number): number | undefined {
    const value = this.#given(name);
    if (value === undefined) return undefined;
    const number =
      typeof value === "number" ? value : /^\s*-?\d+\s*$/.test(String(value)) ? Number(value) : Number.NaN;
    if (!Number.isInteger(number)) throw this.#fail(name, value, "is not a whole number");
    if (number < min || number > max) throw this.#fail(name, value, `must be between ${min} and ${max}`);
    return number;
  }

  integer(name: QueuePropertyName, fallback: number, min: number, max: number): number {
    return this.optionalInteger(name, min, max) ?? fallback;
  }

  duration(
    name: QueuePropertyName,
    fallback: number | null,
    minMs: number,
    maxMs: number,
    foreverAllowed = false,
  ): number | null {
    const value = this.#given(name);
    if (value === undefined) return fallback;
    if (typeof value !== "string") throw this.#fail(name, value, "is not an ISO-8601 duration (like PT1M)");
    const ms = parseIsoDuration(value, { what: name, code: this.code });
    if (ms === null) {
      if (foreverAllowed) return null;
      throw this.#fail(name, value, `cannot be forever; at most ${formatIsoDuration(maxMs)}`);
    }
    if (ms < minMs || ms > maxMs)
      throw this.#fail(
        name,
        value,
        `must be between ${formatIsoDuration(minMs)} and ${formatIsoDuration(maxMs)}`,
      );
    return ms;
  }

  text(name: QueuePropertyName, maxLength: number): string | undefined {
    const value = this.#given(name);
    if (value === undefined) return undefined;
    if (typeof value !== "string") throw this.#fail(name, value, "is not a string");
    if (value.length > maxLength) throw this.#fail(name, value, `is longer than ${maxLength} characters`);
    return value;
  }

  status(): EntityStatus {
    const value = this.#given("Status");
    if (value === undefined) return AZURE_QUEUE_DEFAULTS.status;
    const found = ENTITY_STATUSES.find(
      (status) => status.toLowerCase() === String(value).trim().toLowerCase(),
    );
    if (found === undefined) throw this.#fail("Status", value, `is not one of ${ENTITY_STATUSES.join(", ")}`);
    return found;
  }
}

/** The engine options a description sets; the rest of its settings go to {@link serviceBusProperties}. */
export function engineOptions(description: QueueDescription): QueueOptions {
  return {
    fifo: description.requiresSession,
    lockDurationMs: description.lockDurationMs,
    maxDeliveryCount:
      description.maxDeliveryCount > ENGINE_MAX_DELIVERY_COUNT ? null : description.maxDeliveryCount,
    defaultTimeToLiveMs: foreverPastEngineLimit(description.defaultMessageTimeToLiveMs),
    deadLetterOnExpiration: description.deadLetteringOnMessageExpiration,
    deduplicationWindowMs: description.requiresDuplicateDetection
      ? description.duplicateDetectionHistoryTimeWindowMs
      : 0,
  };
}

/** The `servicebus:` properties that keep what the engine does not use, so a get returns what was set. */
function serviceBusProperties(description: QueueDescription, updatedAt: number): Record<string, string> {
  const properties: Record<string, string> = {
    [KEY.maxSizeInMegabytes]: String(description.maxSizeInMegabytes),
    [KEY.duplicateDetectionHistoryTimeWindow]: formatIsoDuration(
      description.duplicateDetectionHistoryTimeWindowMs,
    ),
    [KEY.enableBatchedOperations]: String(description.enableBatchedOperations),
    [KEY.status]: description.status,
    [KEY.autoDeleteOnIdle]: formatIsoDuration(description.autoDeleteOnIdleMs),
    [KEY.enablePartitioning]: String(description.enablePartitioning),
    [KEY.enableExpress]: String(description.enableExpress),
    [KEY.updatedAt]: String(updatedAt),
  };
  if (description.maxDeliveryCount > ENGINE_MAX_DELIVERY_COUNT)
    properties[KEY.maxDeliveryCount] = String(description.maxDeliveryCount);
  if (description.authorizationRules.length > 0)
    properties[KEY.authorizationRules] = JSON.stringify(description.authorizationRules);
  if (description.forwardTo !== undefined) properties[KEY.forwardTo] = description.forwardTo;
  if (description.userMetadata !== undefined) properties[KEY.userMetadata] = description.userMetadata;
  if (description.forwardDeadLetteredMessagesTo !== undefined)
    properties[KEY.forwardDeadLetteredMessagesTo] = description.forwardDeadLetteredMessagesTo;
  if (description.maxMessageSizeInKilobytes !== undefined)
    properties[KEY.maxMessageSizeInKilobytes] = String(description.maxMessageSizeInKilobytes);
  return properties;
}

/** The properties other protocols keep with a queue, without the Service Bus ones. */
function otherProperties(properties: Readonly<Record<string, string>>): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [key, value] of Object.entries(properties))
    if (!key.startsWith(SERVICE_BUS_PROPERTY_PREFIX)) kept[key] = value;
  return kept;
}

/**
 * The engine record of a new queue with this description. Its dead-letter queue is the engine's
 * `<name>-dlq`, unless a queue of that name already exists (then `<name>/$DeadLetterQueue`, a name
 * no Service Bus client can create), so dead letters never land in someone else's queue.
 */
export function newQueueRecord(
  engine: QueueEngine,
  name: string,
  description: QueueDescription,
): QueueRecord {
  const now = engine.clock.now();
  const usual = deadLetterQueueName(name);
  const deadLetterQueue = engine.getQueueRecord(usual) === undefined ? usual : `${name}/$DeadLetterQueue`;
  return queueRecord(
    name,
    { ...engineOptions(description), deadLetterQueue, properties: serviceBusProperties(description, now) },
    engine.defaults,
    now,
  );
}

/**
 * The record of an existing queue after an update to this description: the engine settings and
 * the `servicebus:` properties replaced; its name, creation time, dead-letter queue, default delay
 * and other protocols' properties kept (its messages stay, the engine keeps them apart).
 */
export function updatedQueueRecord(
  engine: QueueEngine,
  existing: QueueRecord,
  description: QueueDescription,
): QueueRecord {
  const now = engine.clock.now();
  const fresh = queueRecord(
    existing.name,
    {
      ...engineOptions(description),
      deadLetterQueue: existing.deadLetterQueue,
      defaultDelayMs: existing.defaultDelayMs,
    },
    engine.defaults,
    now,
  );
  return {
    ...fresh,
    createdAt: existing.createdAt,
    properties: { ...otherProperties(existing.properties), ...serviceBusProperties(description, now) },
  };
}

/** Whether a queue's settings differ from a description (ignoring when it was last updated). */
export function differsFrom(record: QueueRecord, description: QueueDescription): boolean {
  const current = describeQueueRecord(record);
  return (Object.keys(AZURE_QUEUE_DEFAULTS) as (keyof QueueDescription)[]).some(
    (key) => JSON.stringify(current[key]) !== JSON.stringify(description[key]),
  );
}

/**
 * How Azure describes an engine queue: its engine settings, and the `servicebus:` properties for
 * the rest (Azure's defaults for a queue made elsewhere, by the SQS endpoint say). A count the
 * engine does not keep (`null`) shows as {@link MAX_INT32}.
 */
export function describeQueueRecord(record: QueueRecord): QueueDescription {
  const properties = record.properties;
  const defaults = AZURE_QUEUE_DEFAULTS;
  const text = (key: string): string | undefined => properties[key];
  const flag = (key: string, fallback: boolean): boolean =>
    text(key) === undefined ? fallback : text(key) === "true";
  const count = (key: string): number | undefined => {
    const value = Number(text(key));
    return text(key) === undefined || !Number.isSafeInteger(value) ? undefined : value;
  };
  const duration = (key: string, fallback: number | null): number | null => {
    const value = text(key);
    if (value === undefined) return fallback;
    try {
      return parseIsoDuration(value);
    } catch {
      return fallback;
    }
  };
  const status = ENTITY_STATUSES.find((known) => known === text(KEY.status)) ?? defaults.status;
  return {
    lockDurationMs: record.lockDurationMs,
    maxSizeInMegabytes: count(KEY.maxSizeInMegabytes) ?? defaults.maxSizeInMegabytes,
    requiresDuplicateDetection: record.deduplicationWindowMs > 0,
    requiresSession: record.fifo,
    defaultMessageTimeToLiveMs: record.defaultTimeToLiveMs,
    deadLetteringOnMessageExpiration: record.deadLetterOnExpiration,
    duplicateDetectionHistoryTimeWindowMs:
      record.deduplicationWindowMs > 0
        ? record.deduplicationWindowMs
        : (duration(KEY.duplicateDetectionHistoryTimeWindow, null) ??
          defaults.duplicateDetectionHistoryTimeWindowMs),
    maxDeliveryCount: record.maxDeliveryCount ?? count(KEY.maxDeliveryCount) ?? MAX_INT32,
    enableBatchedOperations: flag(KEY.enableBatchedOperations, defaults.enableBatchedOperations),
    authorizationRules: authorizationRulesOf(text(KEY.authorizationRules)),
    status,
    forwardTo: text(KEY.forwardTo),
    userMetadata: text(KEY.userMetadata),
    autoDeleteOnIdleMs: duration(KEY.autoDeleteOnIdle, defaults.autoDeleteOnIdleMs),
    enablePartitioning: flag(KEY.enablePartitioning, defaults.enablePartitioning),
    forwardDeadLetteredMessagesTo: text(KEY.forwardDeadLetteredMessagesTo),
    enableExpress: flag(KEY.enableExpress, defaults.enableExpress),
    maxMessageSizeInKilobytes: count(KEY.maxMessageSizeInKilobytes),
  };
}

/** When a queue's (or topic's) settings last changed: the last Service Bus update, else its creation. */
export function queueUpdatedAt(record: {
  readonly createdAt: number;
  readonly properties?: Readonly<Record<string, string>> | undefined;
}): number {
  const value = Number(record.properties?.[KEY.updatedAt]);
  return Number.isSafeInteger(value) && value > 0 ? value : record.createdAt;
}

function authorizationRulesOf(json: string | undefined): readonly AuthorizationRuleDescription[] {
  if (json === undefined) return [];
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? (parsed as AuthorizationRuleDescription[]) : [];
  } catch {
    // Written by serviceBusProperties only; a hand-edited store loses its rules rather than its queue.
    return [];
  }
}
