import { hash } from "node:crypto";

/** A message (or message system) attribute value, as far as its MD5 is concerned. */
export interface Md5AttributeValue {
  readonly DataType: string;
  readonly StringValue?: string | undefined;
  /** The raw bytes (already decoded from the JSON protocol's base64). */
  readonly BinaryValue?: Uint8Array | undefined;
  readonly StringListValues?: readonly string[] | undefined;
  readonly BinaryListValues?: readonly Uint8Array[] | undefined;
}

/** Transport type bytes, as in AWS's SDKs: which value field follows. */
const STRING_VALUE = 1;
const BINARY_VALUE = 2;
const STRING_LIST_VALUES = 3;
const BINARY_LIST_VALUES = 4;

/** `MD5OfMessageBody` / `MD5OfBody`: lower-case hex MD5 of the body's UTF-8 bytes. */
export function md5OfMessageBody(body: string | Uint8Array): string {
  return hash("md5", body, "hex");
}

/**
 * `MD5OfMessageAttributes` as SQS computes it: names sorted; for each, the length-prefixed UTF-8
 * name and data type, a transport byte (1 string, 2 binary, 3 string list, 4 binary list) and the
 * length-prefixed value bytes (lengths 4-byte big-endian). Undefined when there are no attributes,
 * as SQS then omits the digest. Over the returned subset only, on receive.
 */
export function md5OfMessageAttributes(
  attributes: Readonly<Record<string, Md5AttributeValue>>,
): string | undefined {
  const names = Object.keys(attributes);
  if (names.length === 0) return undefined;
  // Java's String ordering (UTF-16 code units), which is also JavaScript's default sort.
  names.sort();
  const size = names.reduce((total, name) => total + encodedSize(name, attributes[name]!), 0);
  const buffer = Buffer.allocUnsafe(size);
  let offset = 0;
  for (const name of names) offset = writeAttribute(buffer, offset, name, attributes[name]!);
  return hash("md5", buffer, "hex");
}

/** `MD5OfMessageSystemAttributes`: the same algorithm over `MessageSystemAttributes`. */
export function md5OfMessageSystemAttributes(
  attributes: Readonly<Record<string, Md5AttributeValue>>,
): string | undefined {
  return md5OfMessageAttributes(attributes);
}

function encodedSize(name: string, value: Md5AttributeValue): number {
  let size = 4 + Buffer.byteLength(name) + 4 + Buffer.byteLength(value.DataType) + 1;
  if (value.StringValue !== undefined) return size + 4 + Buffer.byteLength(value.StringValue);
  if (value.BinaryValue !== undefined) return size + 4 + value.BinaryValue.byteLength;
  if (value.StringListValues !== undefined && value.StringListValues.length > 0) {
    for (const item of value.StringListValues) size += 4 + Buffer.byteLength(item);
    return size;
  }
  if (value.BinaryListValues !== undefined && value.BinaryListValues.length > 0) {
    for (const item of value.BinaryListValues) size += 4 + item.byteLength;
    return size;
  }
  // No value at all: SQS refuses such an attribute; the digest still covers name and type.
  return size - 1;
}

function writeAttribute(buffer: Buffer, start: number, name: string, value: Md5AttributeValue): number {
  let offset = writeString(buffer, start, name);
  offset = writeString(buffer, offset, value.DataType);
  if (value.StringValue !== undefined) {
    buffer[offset] = STRING_VALUE;
    return writeString(buffer, offset + 1, value.StringValue);
  }
  if (value.BinaryValue !== undefined) {
    buffer[offset] = BINARY_VALUE;
    return writeBytes(buffer, offset + 1, value.BinaryValue);
  }
  if (value.StringListValues !== undefined && value.StringListValues.length > 0) {
    buffer[offset++] = STRING_LIST_VALUES;
    for (const item of value.StringListValues) offset = writeString(buffer, offset, item);
    return offset;
  }
  if (value.BinaryListValues !== undefined && value.BinaryListValues.length > 0) {
    buffer[offset++] = BINARY_LIST_VALUES;
    for (const item of value.BinaryListValues) offset = writeBytes(buffer, offset, item);
  }
  return offset;
}

function writeString(buffer: Buffer, offset: number, text: string): number {
  const length = buffer.write(text, offset + 4, "utf8");
  buffer.writeUInt32BE(length, offset);
  return offset + 4 + length;
}

function writeBytes(buffer: Buffer, offset: number, bytes: Uint8Array): number {
  buffer.writeUInt32BE(bytes.byteLength, offset);
  buffer.set(bytes, offset + 4);
  return offset + 4 + bytes.byteLength;
}
