import type { Schema, StructureSchema } from "../json-protocol/schema.js";
import { checkedRequest } from "../json-protocol/server-codec.js";
import { sqsError } from "../json-protocol/sqs-errors.js";
import { isSqsOperation, type SqsRequest } from "../json-protocol/sqs-operations.js";
import { SQS_SCHEMAS } from "../json-protocol/sqs-schemas.js";
import { mapKeyName, queryName } from "./query-names.js";

/** The content type of a query protocol request body. */
export const FORM_CONTENT_TYPE = "application/x-www-form-urlencoded";

type Parameters = ReadonlyMap<string, string>;

/**
 * Decodes a request of the AWS query protocol, which SDKs from before SQS's JSON protocol send
 * (`Action=SendMessage&QueueUrl=...&MessageAttribute.1.Name=...`), into the same request the JSON
 * protocol decodes to, checked the same way. Old clients send queue operations to the queue's
 * URL and may leave `QueueUrl` out: `queueUrl` is that URL, when the path names a queue.
 */
export function decodeQueryRequest(parameters: URLSearchParams, queueUrl?: string): SqsRequest {
  const values: Parameters = new Map(parameters);
  const action = values.get("Action");
  if (action === undefined || action === "")
    throw sqsError("MissingAction", "The request must contain the parameter Action.");
  if (!isSqsOperation(action)) {
    const shown = action.length > 100 ? `${action.slice(0, 100)}...` : action;
    throw sqsError("InvalidAction", `The action ${shown} is not valid for this endpoint.`);
  }
  const schema = SQS_SCHEMAS[action].input;
  const input = readStructure(values, schema, "");
  if (input.QueueUrl === undefined && queueUrl !== undefined && "QueueUrl" in schema.members)
    input.QueueUrl = queueUrl;
  return checkedRequest(action, input);
}

function readStructure(values: Parameters, schema: StructureSchema, prefix: string): Record<string, unknown> {
  const read: Record<string, unknown> = {};
  const taken = new Set<string>();
  for (const [member, shape] of Object.entries(schema.members)) {
    const name = queryName(schema.name, member);
    // Two members of one name (ReceiveMessage's attribute names): the first takes the values.
    if (taken.has(name)) continue;
    taken.add(name);
    const key = `${prefix}${name}`;
    const value = readValue(values, shape, key, mapKeyName(schema.name, member));
    if (value !== undefined) read[member] = value;
  }
  return read;
}

/** The value of `schema` under `key`; a map's entries name their keys `keyName`. */
function readValue(values: Parameters, schema: Schema, key: string, keyName: "Key" | "Name"): unknown {
  switch (schema.kind) {
    case "list": {
      const items: unknown[] = [];
      // Numbered from 1 without gaps; the count cannot pass the number of parameters.
      for (let i = 1; i <= values.size; i++) {
        const item = readValue(values, schema.member, `${key}.${i}`, "Name");
        if (item === undefined) break;
        items.push(item);
      }
      return items.length === 0 ? undefined : items;
    }
    case "map":
      return readMap(values, schema.value, key, keyName);
    case "structure": {
      const read = readStructure(values, schema, `${key}.`);
      return Object.keys(read).length === 0 ? undefined : read;
    }
    default:
      return scalar(values.get(key), schema.kind);
  }
}

function readMap(values: Parameters, schema: Schema, key: string, keyName: "Key" | "Name"): unknown {
  const read: Record<string, unknown> = {};
  let found = false;
  for (let i = 1; i <= values.size; i++) {
    const name = values.get(`${key}.${i}.${keyName}`);
    if (name === undefined) break;
    // Defined, not assigned: a key named `__proto__` stays a key, as JSON.parse keeps it.
    Object.defineProperty(read, name, {
      value: readValue(values, schema, `${key}.${i}.Value`, "Name"),
      enumerable: true,
      writable: true,
      configurable: true,
    });
    found = true;
  }
  return found ? read : undefined;
}

/** A parameter as the JSON protocol would carry it; text that is not of its type stays text, for the check to refuse. */
function scalar(text: string | undefined, kind: "string" | "integer" | "long" | "boolean" | "blob"): unknown {
  if (text === undefined) return undefined;
  switch (kind) {
    case "integer":
    case "long":
      return /^[+-]?\d+$/.test(text) ? Number(text) : text;
    case "boolean":
      return text === "true" ? true : text === "false" ? false : text;
    default:
      return text;
  }
}
