import { escapeXml, xmlElement, xmlText } from "./xml.js";

/** The ATOM namespace every entry and feed is in. */
export const ATOM_NAMESPACE = "http://www.w3.org/2005/Atom";
/** The namespace of Service Bus descriptions (`QueueDescription`, `NamespaceInfo`). */
export const SERVICE_BUS_NAMESPACE = "http://schemas.microsoft.com/netservices/2010/10/servicebus/connect";
/** The namespace of a description's `CountDetails` children. */
export const COUNT_DETAILS_NAMESPACE = "http://schemas.microsoft.com/netservices/2011/06/servicebus";
/** The XML Schema instance namespace descriptions declare as `i`. */
export const SCHEMA_INSTANCE_NAMESPACE = "http://www.w3.org/2001/XMLSchema-instance";

/** The content type of one entry. */
export const ENTRY_CONTENT_TYPE = "application/atom+xml;type=entry;charset=utf-8";
/** The content type of a feed. */
export const FEED_CONTENT_TYPE = "application/atom+xml;type=feed;charset=utf-8";

/** One entity as an ATOM entry. */
export interface AtomEntry {
  /**
   * The entity's URL. The SDK takes the entity's name from this URL's path, so it must be
   * `<origin>/<name>`.
   */
  readonly id: string;
  readonly title: string;
  readonly published: Date;
  readonly updated: Date;
  readonly author: string;
  /** The description element, already XML (`<QueueDescription ...>...</QueueDescription>`). */
  readonly content: string;
}

const XML_DECLARATION = '<?xml version="1.0" encoding="utf-8"?>';

function entryXml(entry: AtomEntry, attributes: Readonly<Record<string, string>>): string {
  return xmlElement(
    "entry",
    xmlText("id", entry.id) +
      xmlElement("title", escapeXml(entry.title), { type: "text" }) +
      xmlText("published", entry.published.toISOString()) +
      xmlText("updated", entry.updated.toISOString()) +
      xmlElement("author", xmlText("name", entry.author)) +
      xmlElement("link", "", { rel: "self", href: entry.id }) +
      xmlElement("content", entry.content, { type: "application/xml" }),
    attributes,
  );
}

/** A document of one entry, as a get, create or update answers. */
export function atomEntryDocument(entry: AtomEntry): string {
  return XML_DECLARATION + entryXml(entry, { xmlns: ATOM_NAMESPACE });
}

/** A page of a list, as `$Resources/...` answers. */
export interface AtomFeed {
  readonly id: string;
  readonly title: string;
  readonly updated: Date;
  readonly entries: readonly AtomEntry[];
  /** The URL of the next page, when there is one (its `$skip` is the SDK's continuation token). */
  readonly next?: string | undefined;
}

/**
 * A feed document. It always carries a `self` link: the SDK reads the `next` link only from a
 * list of links (one `<link>` alone parses as an object, not a list, and is passed over).
 */
export function atomFeedDocument(feed: AtomFeed): string {
  let links = xmlElement("link", "", { rel: "self", href: feed.id });
  if (feed.next !== undefined) links += xmlElement("link", "", { rel: "next", href: feed.next });
  return (
    XML_DECLARATION +
    xmlElement(
      "feed",
      xmlElement("title", escapeXml(feed.title), { type: "text" }) +
        xmlText("id", feed.id) +
        xmlText("updated", feed.updated.toISOString()) +
        links +
        feed.entries.map((entry) => entryXml(entry, {})).join(""),
      { xmlns: ATOM_NAMESPACE },
    )
  );
}

/**
 * Azure's error body: the SDK shows `Detail` as the error's message and picks its code from
 * the HTTP status (404 `MessageEntityNotFoundError`, 409 `MessageEntityAlreadyExistsError`, ...).
 */
export function errorDocument(status: number, detail: string): string {
  return xmlElement("Error", xmlText("Code", String(status)) + xmlText("Detail", detail));
}
