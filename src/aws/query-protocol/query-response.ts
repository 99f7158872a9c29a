import type { Schema, StructureSchema } from "../json-protocol/schema.js";
import { asAwsError, type EncodedSqsError } from "../json-protocol/server-codec.js";
import type { SqsOperation, SqsOutput } from "../json-protocol/sqs-operations.js";
import { SQS_SCHEMAS } from "../json-protocol/sqs-schemas.js";
import { mapKeyName, queryName } from "./query-names.js";

/** The XML namespace of SQS's query protocol answers. */
const SQS_XML_NAMESPACE = "http://queue.amazonaws.com/doc/2012-11-05/";

/** The content type of a query protocol answer. */
export const QUERY_CONTENT_TYPE = "text/xml";

/** Encodes an operation's result as the query protocol's XML answer (`<SendMessageResponse>...`). */
export function encodeQueryResponse<Op extends SqsOperation>(
  operation: Op,
  output: SqsOutput<Op>,
  requestId: string,
): string {
  const schema = SQS_SCHEMAS[operation].output;
  const result =
    Object.keys(schema.members).length === 0
      ? ""
      : `<${operation}Result>${structureXml(output as Record<string, unknown>, schema)}</${operation}Result>`;
  return `<?xml version="1.0"?><${operation}Response xmlns="${SQS_XML_NAMESPACE}">${result}<ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata></${operation}Response>`;
}

/** Encodes any error as the query protocol's `<ErrorResponse>`, with the same codes and statuses as the JSON protocol's. */
export function encodeQueryError(error: unknown, requestId: string): EncodedSqsError {
  const answer = asAwsError(error);
  return {
    status: answer.status,
    headers: { "content-type": QUERY_CONTENT_TYPE, "x-amzn-requestid": requestId },
    body: `<?xml version="1.0"?><ErrorResponse xmlns="${SQS_XML_NAMESPACE}"><Error><Type>${answer.fault}</Type><Code>${escapeXml(answer.queryCode)}</Code><Message>${escapeXml(answer.message)}</Message><Detail/></Error><RequestId>${requestId}</RequestId></ErrorResponse>`,
    error: answer,
  };
}

function structureXml(value: Record<string, unknown>, schema: StructureSchema): string {
  let xml = "";
  for (const [member, shape] of Object.entries(schema.members)) {
    const item = value[member];
    if (item === undefined || item === null) continue;
    const tag = queryName(schema.name, member);
    if (shape.kind === "list") {
      for (const entry of item as unknown[]) xml += `<${tag}>${valueXml(entry, shape.member)}</${tag}>`;
    } else if (shape.kind === "map") {
      const key = mapKeyName(schema.name, member);
      for (const [name, entry] of Object.entries(item as Record<string, unknown>))
        xml += `<${tag}><${key}>${escapeXml(name)}</${key}><Value>${valueXml(entry, shape.value)}</Value></${tag}>`;
    } else {
      xml += `<${tag}>${valueXml(item, shape)}</${tag}>`;
    }
  }
  return xml;
}

function valueXml(value: unknown, schema: Schema): string {
  if (schema.kind === "structure") return structureXml(value as Record<string, unknown>, schema);
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64");
  return escapeXml(String(value));
}

const XML_ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&apos;",
  // A parser turns a bare carriage return into a line feed: SQS writes it as a reference.
  "\r": "&#xD;",
};

/** Text as XML character data. */
function escapeXml(text: string): string {
  return text.replace(/[&<>"'\r]/g, (character) => XML_ESCAPES[character]!);
}
