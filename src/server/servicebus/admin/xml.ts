import { XMLParser, XMLValidator } from "fast-xml-parser";
import { QueueError } from "../../../core/errors.js";

/** An element of a parsed document: its local name, attributes, children and direct text. */
export interface XmlElement {
  /** The name without its prefix. */
  readonly name: string;
  /** Attribute values by their name as written (`type`, `xmlns:i`, `i:nil`). */
  readonly attributes: ReadonlyMap<string, string>;
  readonly children: readonly XmlElement[];
  /** The character data directly inside it, entities decoded. */
  readonly text: string;
}

// Named, not numeric: the SDK's parser (fast-xml-parser) decodes only the five named entities.
const ESCAPES: Readonly<Record<string, string>> = {
  "<": "&lt;",
  ">": "&gt;",
  "&": "&amp;",
  '"': "&quot;",
  "'": "&apos;",
};

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: "",
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
});

/** A node as fast-xml-parser gives it in document order: one element name to its children, and its attributes under `:@`. */
type OrderedNode = Record<string, unknown>;

/**
 * Parses a document into its root element (fast-xml-parser, in document order). A DOCTYPE is
 * refused, so no entity of one is expanded, as is anything not well-formed: `Validation`,
 * saying where.
 */
export function parseXml(source: string): XmlElement {
  if (/<!DOCTYPE/i.test(source)) throw invalid("a DOCTYPE is not accepted");
  const valid = XMLValidator.validate(source);
  if (valid !== true) throw invalid(`${valid.err.msg} (line ${valid.err.line}, column ${valid.err.col})`);
  const roots = (parser.parse(source) as OrderedNode[]).map(toElement).filter((node) => node !== undefined);
  if (roots.length !== 1) throw invalid("a document has exactly one root element");
  return roots[0]!;
}

function toElement(node: OrderedNode): XmlElement | undefined {
  const qualifiedName = Object.keys(node).find(
    (key) => key !== ":@" && key !== "#text" && key !== "#comment",
  );
  if (qualifiedName === undefined) return undefined;
  const content = (node[qualifiedName] ?? []) as OrderedNode[];
  const attributes = new Map(Object.entries((node[":@"] ?? {}) as Record<string, string>));
  const children: XmlElement[] = [];
  let text = "";
  for (const part of content) {
    if ("#text" in part) text += String(part["#text"]);
    else {
      const child = toElement(part);
      if (child !== undefined) children.push(child);
    }
  }
  const colon = qualifiedName.indexOf(":");
  return { name: colon < 0 ? qualifiedName : qualifiedName.slice(colon + 1), attributes, children, text };
}

function invalid(why: string): QueueError {
  return new QueueError("Validation", `the request body is not well-formed XML: ${why}`);
}

/** The first child of `element` with this local name (any namespace), or `undefined`. */
export function childNamed(element: XmlElement, name: string): XmlElement | undefined {
  return element.children.find((child) => child.name === name);
}

/** Text made safe for XML content and attribute values. */
export function escapeXml(text: string): string {
  return text
    .replace(/[&<>"']/g, (char) => ESCAPES[char]!)
    .replace(
      // Characters XML 1.0 cannot carry at all: dropped rather than making the document unreadable.
      // biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters being removed
      /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g,
      "",
    );
}

/** `<name attributes>content</name>`, or `<name attributes/>` when the content is empty; content is already XML. */
export function xmlElement(
  name: string,
  content = "",
  attributes: Readonly<Record<string, string>> = {},
): string {
  let open = name;
  for (const [key, value] of Object.entries(attributes)) open += ` ${key}="${escapeXml(value)}"`;
  return content === "" ? `<${open}/>` : `<${open}>${content}</${name}>`;
}

/** `<name>text</name>` with the text escaped. */
export function xmlText(name: string, text: string): string {
  return `<${name}>${escapeXml(text)}</${name}>`;
}
