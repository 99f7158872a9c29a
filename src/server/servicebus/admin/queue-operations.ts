import { QueueError } from "../../../core/errors.js";
import type { QueueEngine } from "../../../engine/queue-engine.js";
import type { QueueRecord } from "../../../rules/queue-records.js";
import { deadLetterQueueNames, findQueue, findServiceBusQueue } from "../entities.js";
import {
  describeQueueRecord,
  newQueueRecord,
  type QueueDescription,
  queueUpdatedAt,
  updatedQueueRecord,
  validateServiceBusQueueName,
} from "../queue-description.js";
import {
  type AtomEntry,
  atomEntryDocument,
  atomFeedDocument,
  ENTRY_CONTENT_TYPE,
  FEED_CONTENT_TYPE,
  SCHEMA_INSTANCE_NAMESPACE,
  SERVICE_BUS_NAMESPACE,
} from "./atom.js";
import { queueDescriptionXml } from "./queue-xml.js";
import { runtimeCounts } from "./runtime-counts.js";
import { xmlElement, xmlText } from "./xml.js";

/** The API version the SDK asks for, repeated in the URLs an answer carries. */
const API_VERSION = "2021-05";
/** The most entries one page of a list holds, as on Azure. */
export const MAX_PAGE = 100;

/** What an operation works with. */
export interface AdminContext {
  readonly engine: QueueEngine;
  /** `http://host:port` as the client addressed the server: entity URLs in answers start with it. */
  readonly origin: string;
  readonly namespaceName: string;
  /** When the server started: the namespace's creation time. */
  readonly startedAt: Date;
}

/** An answer to send: status, content type and body. */
export interface AdminAnswer {
  readonly status: number;
  readonly contentType?: string;
  readonly body: string;
}

function entityUrl(context: AdminContext, name: string): string {
  return `sb://${new URL(context.origin).host}/${name}`;
}

function notFound(context: AdminContext, name: string): QueueError {
  return new QueueError(
    "QueueNotFound",
    `The messaging entity '${entityUrl(context, name)}' could not be found.`,
  );
}

function queueEntry(context: AdminContext, record: QueueRecord): AtomEntry {
  const updatedAt = new Date(queueUpdatedAt(record));
  const createdAt = new Date(record.createdAt);
  return {
    id: `${context.origin}/${record.name}?api-version=${API_VERSION}`,
    title: record.name,
    published: createdAt,
    updated: updatedAt,
    author: context.namespaceName,
    content: queueDescriptionXml(describeQueueRecord(record), {
      counts: runtimeCounts(context.engine, record),
      createdAt,
      updatedAt,
      // The engine does not note reads and sends; the last change is the nearest it knows.
      accessedAt: updatedAt,
    }),
  };
}

function entryAnswer(context: AdminContext, record: QueueRecord, status: number): AdminAnswer {
  return { status, contentType: ENTRY_CONTENT_TYPE, body: atomEntryDocument(queueEntry(context, record)) };
}

/** `GET /<queue>`: the queue's description and counts, or 404. */
export function getQueue(context: AdminContext, name: string): AdminAnswer {
  const record = findServiceBusQueue(context.engine, name);
  if (record === undefined) throw notFound(context, name);
  return entryAnswer(context, record, 200);
}

/**
 * `PUT /<queue>` without `If-Match`: creates the queue with Azure's defaults for what the
 * description leaves out; 409 when a queue of that name exists in any case, or the name is
 * already the dead-letter queue of another.
 */
export function createQueue(context: AdminContext, name: string, description: QueueDescription): AdminAnswer {
  validateServiceBusQueueName(name);
  const { engine } = context;
  const record = engine.transaction(() => {
    const existing = findQueue(engine, name);
    if (existing !== undefined) {
      const owner = engine.listQueues().find((queue) => queue.deadLetterQueue === existing.name);
      throw new QueueError(
        "QueueAlreadyExists",
        owner === undefined
          ? `The messaging entity '${entityUrl(context, existing.name)}' already exists.`
          : `The name '${name}' is taken by the dead-letter queue of '${owner.name}'.`,
      );
    }
    const lower = name.toLowerCase();
    const owner = engine.listQueues().find((queue) => queue.deadLetterQueue?.toLowerCase() === lower);
    if (owner !== undefined)
      throw new QueueError(
        "QueueAlreadyExists",
        `The name '${name}' is taken by the dead-letter queue of '${owner.name}'.`,
      );
    const created = newQueueRecord(engine, name, description);
    engine.insertQueue(created);
    return created;
  });
  return entryAnswer(context, record, 201);
}

/**
 * `PUT /<queue>` with `If-Match: *`: replaces the queue's settings (its messages stay); 404 when
 * there is no such queue, 400 when it would change RequiresSession, which Azure does not allow.
 */
export function updateQueue(context: AdminContext, name: string, description: QueueDescription): AdminAnswer {
  const { engine } = context;
  const record = engine.transaction(() => {
    const existing = findServiceBusQueue(engine, name);
    if (existing === undefined) throw notFound(context, name);
    if (existing.fifo !== description.requiresSession)
      throw new QueueError(
        "Validation",
        "The value for the RequiresSession property of an existing Queue cannot be changed.",
      );
    const updated = updatedQueueRecord(engine, existing, description);
    engine.updateQueue(updated);
    return updated;
  });
  return entryAnswer(context, record, 200);
}

/** `DELETE /<queue>`: deletes the queue, its messages and its dead-letter queue; 404 when there is none. */
export function deleteQueue(context: AdminContext, name: string): AdminAnswer {
  const { engine } = context;
  engine.transaction(() => {
    const existing = findServiceBusQueue(engine, name);
    if (existing === undefined) throw notFound(context, name);
    engine.deleteQueue(existing.name);
    const dead = existing.deadLetterQueue;
    if (
      dead !== null &&
      engine.getQueueRecord(dead) !== undefined &&
      !engine.listQueues().some((queue) => queue.deadLetterQueue === dead)
    )
      engine.deleteQueue(dead);
  });
  return { status: 200, body: "" };
}

/**
 * `GET /$Resources/Queues?$skip=&$top=`: a page of the queues (dead-letter queues left out),
 * sorted by name, at most {@link MAX_PAGE}; a `next` link when more follow.
 */
export function listQueues(context: AdminContext, query: URLSearchParams): AdminAnswer {
  const skip = pagingNumber(query, "$skip", 0);
  const top = Math.min(pagingNumber(query, "$top", MAX_PAGE), MAX_PAGE);
  const { engine } = context;
  const dead = deadLetterQueueNames(engine);
  const queues = engine.listQueues().filter((queue) => !dead.has(queue.name));
  const page = queues.slice(skip, skip + top);
  const self = `${context.origin}/$Resources/Queues?api-version=${API_VERSION}`;
  const next =
    skip + page.length < queues.length && page.length > 0
      ? `${context.origin}/$Resources/Queues?%24skip=${skip + page.length}&%24top=${top}&api-version=${API_VERSION}`
      : undefined;
  const body = atomFeedDocument({
    id: self,
    title: "Queues",
    updated: new Date(engine.clock.now()),
    entries: page.map((record) => queueEntry(context, record)),
    next,
  });
  return { status: 200, contentType: FEED_CONTENT_TYPE, body };
}

/** An empty list (of topics): the server has none of these entities yet. */
export function emptyList(context: AdminContext, title: string): AdminAnswer {
  const self = `${context.origin}/$Resources/${title}?api-version=${API_VERSION}`;
  const body = atomFeedDocument({
    id: self,
    title,
    updated: new Date(context.engine.clock.now()),
    entries: [],
  });
  return { status: 200, contentType: FEED_CONTENT_TYPE, body };
}

/** `GET /$namespaceinfo`: the namespace as a Standard one (the SDK's `getNamespaceProperties`). */
export function namespaceInfo(context: AdminContext): AdminAnswer {
  const started = context.startedAt.toISOString();
  const info = xmlElement(
    "NamespaceInfo",
    xmlText("Alias", context.namespaceName) +
      xmlText("CreatedTime", started) +
      xmlText("MessagingSKU", "Standard") +
      xmlText("MessagingUnits", "0") +
      xmlText("ModifiedTime", started) +
      xmlText("Name", context.namespaceName) +
      xmlText("NamespaceType", "Messaging"),
    { xmlns: SERVICE_BUS_NAMESPACE, "xmlns:i": SCHEMA_INSTANCE_NAMESPACE },
  );
  const body = atomEntryDocument({
    id: `${context.origin}/$namespaceinfo?api-version=${API_VERSION}`,
    title: context.namespaceName,
    published: context.startedAt,
    updated: context.startedAt,
    author: context.namespaceName,
    content: info,
  });
  return { status: 200, contentType: ENTRY_CONTENT_TYPE, body };
}

function pagingNumber(query: URLSearchParams, name: string, fallback: number): number {
  const text = query.get(name);
  if (text === null || text === "") return fallback;
  if (!/^\d{1,9}$/.test(text))
    throw new QueueError("Validation", `${name} ${JSON.stringify(text)} is not a whole number`);
  return Number(text);
}
