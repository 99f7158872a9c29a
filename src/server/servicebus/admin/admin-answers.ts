import { QueueError } from "../../../core/errors.js";
import type { QueueEngine } from "../../../engine/queue-engine.js";
import {
  type AtomEntry,
  atomEntryDocument,
  atomFeedDocument,
  ENTRY_CONTENT_TYPE,
  FEED_CONTENT_TYPE,
} from "./atom.js";

/** The API version the SDK asks for, repeated in the URLs an answer carries. */
export const API_VERSION = "2021-05";
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

/** An entity as an entry shows it: its path (`orders`, `orders/Subscriptions/billing`), times and description. */
export interface EntityEntry {
  /** The path the SDK takes the entity's names from. */
  readonly path: string;
  readonly title: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /** The description element, already XML. */
  readonly content: string;
}

/** The `sb://` URL Azure names an entity by in its messages. */
export function entityUrl(context: AdminContext, path: string): string {
  return `sb://${new URL(context.origin).host}/${path}`;
}

/** 404 for an entity that does not exist, in Azure's words. */
export function entityNotFound(context: AdminContext, path: string): QueueError {
  return new QueueError(
    "QueueNotFound",
    `The messaging entity '${entityUrl(context, path)}' could not be found.`,
  );
}

/** 409 for an entity that exists already, in Azure's words. */
export function entityExists(context: AdminContext, path: string): QueueError {
  return new QueueError(
    "QueueAlreadyExists",
    `The messaging entity '${entityUrl(context, path)}' already exists.`,
  );
}

function atomEntry(context: AdminContext, entity: EntityEntry): AtomEntry {
  return {
    id: `${context.origin}/${entity.path}?api-version=${API_VERSION}`,
    title: entity.title,
    published: entity.createdAt,
    updated: entity.updatedAt,
    author: context.namespaceName,
    content: entity.content,
  };
}

/** One entity's entry document, as a get, create or update answers. */
export function entryAnswer(context: AdminContext, entity: EntityEntry, status: number): AdminAnswer {
  return { status, contentType: ENTRY_CONTENT_TYPE, body: atomEntryDocument(atomEntry(context, entity)) };
}

/** 200 with no body: what a delete answers. */
export const DELETED: AdminAnswer = { status: 200, body: "" };

/**
 * A page of a list at `path` (`$Resources/Queues`, `orders/Subscriptions`) as `?$skip=&$top=`
 * asks, at most {@link MAX_PAGE}; a `next` link when more follow (its `$skip` is the SDK's
 * continuation token). Only the page's items are made entries.
 */
export function feedAnswer<T>(
  context: AdminContext,
  path: string,
  title: string,
  items: readonly T[],
  query: URLSearchParams,
  toEntry: (item: T) => EntityEntry,
): AdminAnswer {
  const skip = pagingNumber(query, "$skip", 0);
  const top = Math.min(pagingNumber(query, "$top", MAX_PAGE), MAX_PAGE);
  const page = items.slice(skip, skip + top);
  const next =
    skip + page.length < items.length && page.length > 0
      ? `${context.origin}/${path}?%24skip=${skip + page.length}&%24top=${top}&api-version=${API_VERSION}`
      : undefined;
  const body = atomFeedDocument({
    id: `${context.origin}/${path}?api-version=${API_VERSION}`,
    title,
    updated: new Date(context.engine.clock.now()),
    entries: page.map((item) => atomEntry(context, toEntry(item))),
    next,
  });
  return { status: 200, contentType: FEED_CONTENT_TYPE, body };
}

function pagingNumber(query: URLSearchParams, name: string, fallback: number): number {
  const text = query.get(name);
  if (text === null || text === "") return fallback;
  if (!/^\d{1,9}$/.test(text))
    throw new QueueError("Validation", `${name} ${JSON.stringify(text)} is not a whole number`);
  return Number(text);
}
