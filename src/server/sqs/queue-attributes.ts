import { QUEUE_ATTRIBUTE_NAMES, sqsError } from "../../aws/index.js";
import type { QueueStats } from "../../core/admin.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import { hasFifoSuffix, type QueueAddresses } from "./queue-urls.js";
import type { ServiceState } from "./sqs-service.js";

/** The largest message SQS accepts, and its default `MaximumMessageSize`. */
export const SQS_MAX_MESSAGE_BYTES = 1_048_576;
/** How long SQS remembers a FIFO deduplication id. */
export const SQS_DEDUPLICATION_WINDOW_MS = 300_000;
const TAG_PREFIX = "tag:";

/** Attributes the service computes; a request may read them but never set them. */
const READ_ONLY = new Set([
  "ApproximateNumberOfMessages",
  "ApproximateNumberOfMessagesNotVisible",
  "ApproximateNumberOfMessagesDelayed",
  "CreatedTimestamp",
  "LastModifiedTimestamp",
  "QueueArn",
]);
/** Attributes only a FIFO queue has. */
const FIFO_ONLY = new Set([
  "FifoQueue",
  "ContentBasedDeduplication",
  "DeduplicationScope",
  "FifoThroughputLimit",
]);
/** Attributes kept as given in the queue's properties (the engine does not read them). */
const KEPT = [
  "MaximumMessageSize",
  "ReceiveMessageWaitTimeSeconds",
  "ContentBasedDeduplication",
  "DeduplicationScope",
  "FifoThroughputLimit",
  "KmsMasterKeyId",
  "KmsDataKeyReusePeriodSeconds",
  "SqsManagedSseEnabled",
  "Policy",
  "RedriveAllowPolicy",
] as const;

const STANDARD_DEFAULTS: Record<string, string> = {
  VisibilityTimeout: "30",
  DelaySeconds: "0",
  MaximumMessageSize: String(SQS_MAX_MESSAGE_BYTES),
  MessageRetentionPeriod: "345600",
  ReceiveMessageWaitTimeSeconds: "0",
  SqsManagedSseEnabled: "true",
};
const FIFO_DEFAULTS: Record<string, string> = {
  ...STANDARD_DEFAULTS,
  FifoQueue: "true",
  ContentBasedDeduplication: "false",
  DeduplicationScope: "queue",
  FifoThroughputLimit: "perQueue",
};

/** What attribute checks need to know besides the attributes. */
export interface AttributeContext {
  readonly addresses: QueueAddresses;
  /** A queue by name, to check a redrive target. */
  readonly queue: (name: string) => QueueRecord | undefined;
  readonly now: number;
}

/** What the attribute checks need of the service now. */
export function attributeContext(state: ServiceState): AttributeContext {
  return {
    addresses: state.addresses,
    queue: (name) => state.engine.getQueueRecord(name),
    now: state.clock.now(),
  };
}

function invalidValue(name: string, value: string, reason: string): Error {
  return sqsError(
    "InvalidAttributeValue",
    `Invalid value for the parameter ${name}. Reason: ${reason} (${value.slice(0, 100)})`,
  );
}

function seconds(name: string, value: string, min: number, max: number): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) < min || Number(value) > max)
    throw invalidValue(name, value, `must be a whole number of seconds from ${min} to ${max}`);
  return Number(value);
}

function oneOf(name: string, value: string, allowed: readonly string[]): string {
  if (!allowed.includes(value)) throw invalidValue(name, value, `must be one of ${allowed.join(", ")}`);
  return value;
}

function json(name: string, value: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed))
      return parsed as Record<string, unknown>;
  } catch {
    // answered below
  }
  throw invalidValue(name, value, "must be a JSON object");
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

// Applies one attribute to a record being built; every check happens before anything is kept.
function apply(
  record: Mutable<QueueRecord>,
  properties: Record<string, string>,
  name: string,
  value: string,
  context: AttributeContext,
): void {
  switch (name) {
    case "VisibilityTimeout":
      record.lockDurationMs = seconds(name, value, 0, 43_200) * 1000;
      return;
    case "DelaySeconds":
      record.defaultDelayMs = seconds(name, value, 0, 900) * 1000;
      return;
    case "MessageRetentionPeriod":
      record.defaultTimeToLiveMs = seconds(name, value, 60, 1_209_600) * 1000;
      return;
    case "MaximumMessageSize":
      properties[name] = String(seconds(name, value, 1_024, SQS_MAX_MESSAGE_BYTES));
      return;
    case "ReceiveMessageWaitTimeSeconds":
      properties[name] = String(seconds(name, value, 0, 20));
      return;
    case "KmsDataKeyReusePeriodSeconds":
      properties[name] = String(seconds(name, value, 60, 86_400));
      return;
    case "ContentBasedDeduplication":
    case "SqsManagedSseEnabled":
      properties[name] = oneOf(name, value, ["true", "false"]);
      return;
    case "DeduplicationScope":
      properties[name] = oneOf(name, value, ["queue", "messageGroup"]);
      return;
    case "FifoThroughputLimit":
      properties[name] = oneOf(name, value, ["perQueue", "perMessageGroupId"]);
      return;
    case "Policy":
    case "RedriveAllowPolicy":
      // An empty value removes the policy, as on SQS.
      if (value === "") delete properties[name];
      else {
        json(name, value);
        properties[name] = value;
      }
      return;
    case "KmsMasterKeyId":
      properties[name] = value;
      return;
    case "RedrivePolicy":
      applyRedrivePolicy(record, value, context);
      return;
    case "FifoQueue":
      if (oneOf(name, value, ["true", "false"]) !== String(record.fifo))
        throw sqsError(
          "InvalidAttributeValue",
          "Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported.",
        );
      return;
    default:
      throw sqsError("InvalidAttributeName", `Unknown Attribute ${name}.`);
  }
}

function applyRedrivePolicy(record: Mutable<QueueRecord>, value: string, context: AttributeContext): void {
  if (value === "") {
    record.deadLetterQueue = null;
    record.maxDeliveryCount = null;
    return;
  }
  const policy = json("RedrivePolicy", value);
  const reason = (text: string) =>
    sqsError(
      "InvalidParameterValue",
      `Value ${value} for parameter RedrivePolicy is invalid. Reason: ${text}`,
    );
  if (typeof policy.deadLetterTargetArn !== "string")
    throw reason("The required parameter 'deadLetterTargetArn' is missing");
  if (policy.maxReceiveCount === undefined)
    throw reason("The required parameter 'maxReceiveCount' is missing");
  const maxReceiveCount = Number(policy.maxReceiveCount);
  if (!Number.isInteger(maxReceiveCount) || maxReceiveCount < 1 || maxReceiveCount > 1_000)
    throw reason(
      `Invalid value for maxReceiveCount: ${String(policy.maxReceiveCount)}, valid values are from 1 to 1000 both inclusive.`,
    );
  const target = context.queue(context.addresses.nameFromArn(policy.deadLetterTargetArn, "RedrivePolicy"));
  if (target === undefined) throw reason("Dead letter target does not exist.");
  if (target.fifo !== record.fifo)
    throw reason("Dead-letter queue must be same type of queue as the source.");
  if (target.name === record.name) throw reason("A queue cannot be its own dead-letter queue.");
  record.deadLetterQueue = target.name;
  record.maxDeliveryCount = maxReceiveCount;
}

function checkNames(attributes: Readonly<Record<string, string>>, fifo: boolean): void {
  for (const name of Object.keys(attributes)) {
    if (READ_ONLY.has(name) || !(QUEUE_ATTRIBUTE_NAMES as readonly string[]).includes(name) || name === "All")
      throw sqsError("InvalidAttributeName", `Unknown Attribute ${name}.`);
    if (!fifo && FIFO_ONLY.has(name)) throw sqsError("InvalidAttributeName", `Unknown Attribute ${name}.`);
  }
  if (attributes.FifoThroughputLimit === "perMessageGroupId" && attributes.DeduplicationScope === "queue")
    throw sqsError(
      "InvalidAttributeValue",
      "Invalid value for the parameter FifoThroughputLimit. Reason: perMessageGroupId requires DeduplicationScope messageGroup.",
    );
}

/** The record of a queue created through SQS: SQS's defaults, then the given attributes and tags. */
export function newQueueRecord(
  name: string,
  attributes: Readonly<Record<string, string>>,
  tags: Readonly<Record<string, string>>,
  context: AttributeContext,
): QueueRecord {
  const fifo = attributes.FifoQueue === "true";
  if (
    attributes.FifoQueue !== undefined &&
    attributes.FifoQueue !== "true" &&
    attributes.FifoQueue !== "false"
  )
    throw invalidValue("FifoQueue", attributes.FifoQueue, "must be true or false");
  if (fifo !== hasFifoSuffix(name))
    throw sqsError(
      "InvalidParameterValue",
      "The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length.",
    );
  checkNames(attributes, fifo);
  const record: Mutable<QueueRecord> = {
    name,
    fifo,
    lockDurationMs: 30_000,
    maxDeliveryCount: null,
    deadLetterQueue: null,
    defaultTimeToLiveMs: 345_600_000,
    deadLetterOnExpiration: false,
    deduplicationWindowMs: fifo ? SQS_DEDUPLICATION_WINDOW_MS : 0,
    defaultDelayMs: 0,
    createdAt: context.now,
    properties: {},
  };
  const properties: Record<string, string> = { LastModifiedTimestamp: String(context.now) };
  for (const [key, value] of Object.entries(tags)) properties[TAG_PREFIX + key] = value;
  for (const [key, value] of Object.entries(attributes)) apply(record, properties, key, value, context);
  record.properties = properties;
  return record;
}

/** A queue's record with attributes set (SetQueueAttributes). */
export function updatedQueueRecord(
  current: QueueRecord,
  attributes: Readonly<Record<string, string>>,
  context: AttributeContext,
): QueueRecord {
  checkNames(attributes, current.fifo);
  const record: Mutable<QueueRecord> = { ...current };
  const properties = { ...current.properties, LastModifiedTimestamp: String(context.now) };
  for (const [key, value] of Object.entries(attributes)) apply(record, properties, key, value, context);
  record.properties = properties;
  return record;
}

/** The attribute of `attributes` whose value differs from the queue's, for CreateQueue's idempotency. */
export function differingAttribute(
  record: QueueRecord,
  attributes: Readonly<Record<string, string>>,
  addresses: QueueAddresses,
): string | undefined {
  const current = settableAttributes(record, addresses);
  return Object.keys(attributes).find((name) => !sameValue(name, current[name] ?? "", attributes[name]!));
}

/** JSON attributes are the same when they say the same, whatever their spacing or key order. */
const JSON_VALUED = new Set(["Policy", "RedriveAllowPolicy", "RedrivePolicy"]);

function sameValue(name: string, current: string, given: string): boolean {
  if (current === given) return true;
  if (!JSON_VALUED.has(name) || current === "" || given === "") return false;
  try {
    return canonicalJson(name, JSON.parse(current)) === canonicalJson(name, JSON.parse(given));
  } catch {
    return false;
  }
}

/** A JSON value with object keys sorted (and a RedrivePolicy's receive count as a number), as text. */
function canonicalJson(name: string, value: unknown): string {
  const sorted = (item: unknown): unknown => {
    if (Array.isArray(item)) return item.map(sorted);
    if (item === null || typeof item !== "object") return item;
    const entries = Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return Object.fromEntries(entries.map(([key, inner]) => [key, sorted(inner)]));
  };
  const parsed = value as Record<string, unknown>;
  if (name === "RedrivePolicy" && parsed !== null && typeof parsed === "object")
    return JSON.stringify(sorted({ ...parsed, maxReceiveCount: Number(parsed.maxReceiveCount) }));
  return JSON.stringify(sorted(value));
}

function settableAttributes(record: QueueRecord, addresses: QueueAddresses): Record<string, string> {
  const attributes: Record<string, string> = { ...(record.fifo ? FIFO_DEFAULTS : STANDARD_DEFAULTS) };
  attributes.VisibilityTimeout = String(Math.round(record.lockDurationMs / 1000));
  attributes.DelaySeconds = String(Math.round(record.defaultDelayMs / 1000));
  attributes.MessageRetentionPeriod = String(
    Math.round((record.defaultTimeToLiveMs ?? 1_209_600_000) / 1000),
  );
  for (const name of KEPT)
    if (record.properties[name] !== undefined) attributes[name] = record.properties[name]!;
  if (record.deadLetterQueue !== null && record.maxDeliveryCount !== null)
    attributes.RedrivePolicy = JSON.stringify({
      deadLetterTargetArn: addresses.arn(record.deadLetterQueue),
      maxReceiveCount: record.maxDeliveryCount,
    });
  return attributes;
}

/** The attributes GetQueueAttributes answers: those named (`All` for every one); none when none are named. */
export function renderAttributes(
  record: QueueRecord,
  names: readonly string[] | undefined,
  stats: QueueStats,
  addresses: QueueAddresses,
): Record<string, string> {
  if (names === undefined || names.length === 0) return {};
  for (const name of names)
    if (!(QUEUE_ATTRIBUTE_NAMES as readonly string[]).includes(name))
      throw sqsError("InvalidAttributeName", `Unknown Attribute ${name}.`);
  const all: Record<string, string> = {
    ...settableAttributes(record, addresses),
    ApproximateNumberOfMessages: String(stats.active),
    ApproximateNumberOfMessagesNotVisible: String(stats.inFlight),
    ApproximateNumberOfMessagesDelayed: String(stats.delayed),
    CreatedTimestamp: String(Math.floor(record.createdAt / 1000)),
    LastModifiedTimestamp: String(
      Math.floor(Number(record.properties.LastModifiedTimestamp ?? record.createdAt) / 1000),
    ),
    QueueArn: addresses.arn(record.name),
  };
  if (names.includes("All")) return all;
  return Object.fromEntries(
    names.filter((name) => all[name] !== undefined).map((name) => [name, all[name]!]),
  );
}

/** The queue's tags. */
export function tagsOf(record: QueueRecord): Record<string, string> {
  return Object.fromEntries(
    Object.entries(record.properties)
      .filter(([key]) => key.startsWith(TAG_PREFIX))
      .map(([key, value]) => [key.slice(TAG_PREFIX.length), value]),
  );
}

/** The queue's record with tags added (`set`) or removed (`remove`). */
export function retagged(
  record: QueueRecord,
  set: Readonly<Record<string, string>>,
  remove: readonly string[],
): QueueRecord {
  const properties = { ...record.properties };
  for (const key of remove) delete properties[TAG_PREFIX + key];
  for (const [key, value] of Object.entries(set)) properties[TAG_PREFIX + key] = value;
  if (Object.keys(properties).filter((key) => key.startsWith(TAG_PREFIX)).length > 50)
    throw sqsError(
      "InvalidParameterValue",
      "Too many tags added for queue: a queue can have at most 50 tags.",
    );
  return { ...record, properties };
}

/** The queue's largest message, body and attributes, in bytes. */
export function maximumMessageSize(record: QueueRecord): number {
  return Number(record.properties.MaximumMessageSize ?? SQS_MAX_MESSAGE_BYTES);
}

/** How long a receive waits when the request does not say. */
export function defaultWaitSeconds(record: QueueRecord): number {
  return Number(record.properties.ReceiveMessageWaitTimeSeconds ?? 0);
}
