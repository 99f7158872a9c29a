import { readFileSync } from "node:fs";
import { type ParseError, parse, printParseErrorCode, visit } from "jsonc-parser";
import { QueueError } from "../../core/errors.js";
import type { QueueEngine } from "../../engine/queue-engine.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import { type TopicDefinition, topicDefinition } from "./emulator-topics.js";
import { findQueue } from "./entities.js";
import {
  describeQueue,
  differsFrom,
  newQueueRecord,
  QUEUE_PROPERTY_NAMES,
  type QueueDescription,
  type QueueProperties,
  type QueuePropertyName,
  updatedQueueRecord,
  validateServiceBusQueueName,
} from "./queue-description.js";

/** A queue as a Config.json defines it: its name and its complete description (Azure's defaults filling gaps). */
export interface QueueDefinition {
  readonly name: string;
  readonly description: QueueDescription;
}

/** What a Config.json holds that the server uses. */
export interface EmulatorConfig {
  /** The file it was read from, as given (for messages). */
  readonly file: string;
  /** `UserConfig.Namespaces[0].Name` (`sbemulatorns` in the official file). */
  readonly namespace: string;
  readonly queues: readonly QueueDefinition[];
  /** The names of the topics the file defines. */
  readonly topics: readonly string[];
  /** The topics the file defines, with their subscriptions and rules ({@link applyEmulatorTopics}). */
  readonly topicDefinitions: readonly TopicDefinition[];
}

/** What {@link applyEmulatorConfig} did. */
export interface AppliedConfig {
  /** Queues that did not exist and were created. */
  readonly created: readonly string[];
  /** Queues that existed with other settings and were changed to the file's (their messages kept). */
  readonly updated: readonly string[];
}

// The official emulator's queue properties, and the rest of QueueDescription the server keeps.
const KNOWN_PROPERTIES: ReadonlySet<string> = new Set<QueuePropertyName>(QUEUE_PROPERTY_NAMES);

/** What applying one definition does: create it (no `existing`) or update `existing`. */
interface Planned {
  readonly name: string;
  readonly description: QueueDescription;
  readonly existing: QueueRecord | undefined;
}

/** Reads the official Service Bus emulator's Config.json at `path`; every fault is one `Configuration` error naming the file. */
export function readEmulatorConfig(path: string): EmulatorConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new QueueError(
      "Configuration",
      `${path}: cannot read the Service Bus config file${code === "ENOENT" ? " (no such file)" : code === undefined ? "" : ` (${code})`}`,
      { cause: error },
    );
  }
  return parseEmulatorConfig(text, path);
}

/**
 * The queues and topics of an emulator Config.json given as text (`file` names it in
 * errors). The format is the official emulator's: `UserConfig.Namespaces` (exactly one),
 * each with `Name`, `Queues` (`Name`, `Properties`) and `Topics` (`Name`, `Properties`,
 * `Subscriptions` with their `Rules`); `//` and block comments are allowed, as in the official
 * sample. A fault fails with one `Configuration` error naming the file, the entity and the property.
 */
export function parseEmulatorConfig(text: string, file: string): EmulatorConfig {
  const fail = (why: string): QueueError => new QueueError("Configuration", `${file}: ${why}`);
  const document = parseJsonWithComments(text, fail);
  const userConfig = field(document, "UserConfig", "the file", fail);
  const namespaces = field(userConfig, "Namespaces", "UserConfig", fail);
  if (!Array.isArray(namespaces)) throw fail("UserConfig.Namespaces must be a list of namespaces");
  if (namespaces.length !== 1)
    throw fail(
      `UserConfig.Namespaces must hold exactly one namespace (the emulator has one); it holds ${namespaces.length}`,
    );
  const namespace: unknown = namespaces[0];
  const namespaceName = field(namespace, "Name", "UserConfig.Namespaces[0]", fail);
  if (typeof namespaceName !== "string" || namespaceName === "")
    throw fail("UserConfig.Namespaces[0].Name must be a non-empty string");
  const queues = listField(namespace, "Queues", fail).map((entry, index) =>
    queueDefinition(entry, index, fail),
  );
  const topicDefinitions = listField(namespace, "Topics", fail).map((entry, index) =>
    topicDefinition(entry, index, fail),
  );
  // Queues and topics share one namespace of names.
  const seen = new Map<string, string>();
  const entities = [
    ...queues.map((queue) => `queue ${JSON.stringify(queue.name)}`),
    ...topicDefinitions.map((topic) => `topic ${JSON.stringify(topic.name)}`),
  ];
  for (const entity of entities) {
    const lower = entity.slice(entity.indexOf(" ") + 1).toLowerCase();
    const other = seen.get(lower);
    if (other !== undefined)
      throw fail(`${other} and ${entity} have the same name (Service Bus names ignore case)`);
    seen.set(lower, entity);
  }
  const topics = topicDefinitions.map((topic) => topic.name);
  return { file, namespace: namespaceName, queues, topics, topicDefinitions };
}

function queueDefinition(entry: unknown, index: number, fail: (why: string) => QueueError): QueueDefinition {
  if (!isObject(entry)) throw fail(`Queues[${index}] must be an object with a Name and Properties`);
  const name = entry.Name;
  if (typeof name !== "string" || name === "") throw fail(`Queues[${index}] needs a Name`);
  const where = `queue ${JSON.stringify(name)}`;
  try {
    validateServiceBusQueueName(name, "Configuration");
  } catch (error) {
    throw fail(`${where}: ${(error as Error).message}`);
  }
  const given = entry.Properties ?? {};
  if (!isObject(given)) throw fail(`${where}: Properties must be an object`);
  const properties: Partial<Record<QueuePropertyName, string | number | boolean>> = {};
  for (const [key, value] of Object.entries(given)) {
    if (!KNOWN_PROPERTIES.has(key))
      throw fail(`${where}: unknown property ${key} (known: ${QUEUE_PROPERTY_NAMES.join(", ")})`);
    if (typeof value !== "string" && typeof value !== "number" && typeof value !== "boolean")
      throw fail(`${where}: ${key} must be a string, a number or a boolean`);
    properties[key as QueuePropertyName] = value;
  }
  try {
    return { name, description: describeQueue(properties as QueueProperties, [], "Configuration") };
  } catch (error) {
    throw fail(`${where}: ${(error as Error).message}`);
  }
}

/**
 * Makes the engine's queues match the definitions, in one transaction: a missing queue is
 * created, an existing one (found by name in any case) gets the file's settings and keeps its
 * messages, so a restart on the same store loses nothing. Queues the file does not name are left
 * alone. RequiresSession cannot change while the queue or its dead-letter queue holds messages
 * (`Configuration`). Applying the same definitions again changes nothing.
 */
export function applyEmulatorConfig(
  engine: QueueEngine,
  definitions: readonly QueueDefinition[],
): AppliedConfig {
  return engine.transaction(() => {
    // Every check before the first write: not every store rolls a transaction back.
    const plan = definitions.flatMap(({ name, description }): Planned[] => {
      const existing = findQueue(engine, name);
      if (existing === undefined) return [{ name, description, existing }];
      if (!differsFrom(existing, description)) return [];
      if (existing.fifo !== description.requiresSession && holdsMessages(engine, existing.name))
        throw new QueueError(
          "Configuration",
          `queue ${JSON.stringify(existing.name)} holds messages, so RequiresSession cannot change to ${description.requiresSession}; purge or delete it first`,
        );
      return [{ name, description, existing }];
    });
    const created: string[] = [];
    const updated: string[] = [];
    for (const { name, description, existing } of plan) {
      if (existing === undefined) {
        engine.insertQueue(newQueueRecord(engine, name, description));
        created.push(name);
      } else {
        engine.updateQueue(updatedQueueRecord(engine, existing, description));
        updated.push(existing.name);
      }
    }
    return { created, updated };
  });
}

function holdsMessages(engine: QueueEngine, name: string): boolean {
  const stats = engine.stats(name);
  return stats.active + stats.inFlight + stats.delayed + stats.deadLettered > 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function field(value: unknown, name: string, where: string, fail: (why: string) => QueueError): unknown {
  if (!isObject(value)) throw fail(`${where} must be an object`);
  if (value[name] === undefined) throw fail(`${where} has no ${name}`);
  return value[name];
}

// Queues and Topics may be left out (an emulator file needs both; nothing here depends on them).
function listField(namespace: unknown, name: string, fail: (why: string) => QueueError): unknown[] {
  const value = isObject(namespace) ? namespace[name] : undefined;
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw fail(`UserConfig.Namespaces[0].${name} must be a list`);
  return value;
}

/**
 * JSON with `//` and block comments, as the official sample has them (jsonc-parser, VS Code's
 * reader); a fault, a key given twice among them, is reported with its line and column, which
 * Node's JSON.parse often lacks.
 */
function parseJsonWithComments(text: string, fail: (why: string) => QueueError): unknown {
  const at = (offset: number) => {
    const before = text.slice(0, offset);
    return `line ${before.split("\n").length}, column ${offset - before.lastIndexOf("\n")}`;
  };
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: false, disallowComments: false });
  const first = errors[0];
  if (first !== undefined)
    throw fail(`not valid JSON: ${printParseErrorCode(first.error)} at ${at(first.offset)}`);
  const keys: Set<string>[] = [];
  let repeated: { key: string; offset: number } | undefined;
  visit(text, {
    onObjectBegin: () => void keys.push(new Set()),
    onObjectEnd: () => void keys.pop(),
    onObjectProperty: (key, offset) => {
      const seen = keys.at(-1)!;
      if (seen.has(key)) repeated ??= { key, offset };
      seen.add(key);
    },
  });
  if (repeated !== undefined)
    throw fail(`not valid JSON: ${JSON.stringify(repeated.key)} is given twice at ${at(repeated.offset)}`);
  return value;
}
