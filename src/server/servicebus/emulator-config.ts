import { readFileSync } from "node:fs";
import { QueueError } from "../../core/errors.js";
import type { QueueEngine } from "../../engine/queue-engine.js";
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
  /** The names of the topics the file defines: not served yet, so the CLI can say so. */
  readonly topics: readonly string[];
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
 * The queues and topic names of an emulator Config.json given as text (`file` names it in
 * errors). The format is the official emulator's: `UserConfig.Namespaces` (exactly one),
 * each with `Name`, `Queues` (`Name`, `Properties`) and `Topics`; `//` and block comments are
 * allowed, as in the official sample. A fault fails with one `Configuration` error naming the
 * file, the queue and the property.
 */
export function parseEmulatorConfig(text: string, file: string): EmulatorConfig {
  const fail = (why: string): QueueError => new QueueError("Configuration", `${file}: ${why}`);
  let document: unknown;
  try {
    document = JSON.parse(withoutComments(text));
  } catch (error) {
    throw fail(`not valid JSON: ${jsonErrorWhere(error, text)}`);
  }
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
  const seen = new Map<string, string>();
  for (const queue of queues) {
    const other = seen.get(queue.name.toLowerCase());
    if (other !== undefined)
      throw fail(
        `queues ${JSON.stringify(other)} and ${JSON.stringify(queue.name)} have the same name (Service Bus names ignore case)`,
      );
    seen.set(queue.name.toLowerCase(), queue.name);
  }
  const topics = listField(namespace, "Topics", fail).map((topic, index) => {
    const name = isObject(topic) ? topic.Name : undefined;
    if (typeof name !== "string" || name === "") throw fail(`Topics[${index}] needs a Name`);
    return name;
  });
  return { file, namespace: namespaceName, queues, topics };
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
  const created: string[] = [];
  const updated: string[] = [];
  engine.transaction(() => {
    for (const { name, description } of definitions) {
      const existing = findQueue(engine, name);
      if (existing === undefined) {
        engine.insertQueue(newQueueRecord(engine, name, description));
        created.push(name);
        continue;
      }
      if (!differsFrom(existing, description)) continue;
      if (existing.fifo !== description.requiresSession && holdsMessages(engine, existing.name))
        throw new QueueError(
          "Configuration",
          `queue ${JSON.stringify(existing.name)} holds messages, so RequiresSession cannot change to ${description.requiresSession}; purge or delete it first`,
        );
      engine.updateQueue(updatedQueueRecord(engine, existing, description));
      updated.push(existing.name);
    }
  });
  return { created, updated };
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

/** JSON text with `//` and block comments blanked out (strings left intact), so positions stay where they were. */
function withoutComments(text: string): string {
  let out = "";
  let at = 0;
  while (at < text.length) {
    const char = text[at]!;
    if (char === '"') {
      let end = at + 1;
      while (end < text.length && text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      out += text.slice(at, end + 1);
      at = end + 1;
    } else if (text.startsWith("//", at)) {
      const end = text.indexOf("\n", at);
      const stop = end < 0 ? text.length : end;
      out += " ".repeat(stop - at);
      at = stop;
    } else if (text.startsWith("/*", at)) {
      const end = text.indexOf("*/", at + 2);
      const stop = end < 0 ? text.length : end + 2;
      out += text.slice(at, stop).replace(/[^\n]/g, " ");
      at = stop;
    } else {
      out += char;
      at++;
    }
  }
  return out;
}

// Node's JSON errors give a character position; a line and column are what an editor shows.
function jsonErrorWhere(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const position = /position (\d+)/.exec(message);
  if (position === null) return message;
  const before = text.slice(0, Number(position[1]));
  const line = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n");
  return `${message.replace(/ in JSON at position \d+.*$/, "")} at line ${line}, column ${column}`;
}
