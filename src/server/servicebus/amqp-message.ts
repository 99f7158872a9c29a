import rhea from "rhea";

/** The parts of an AMQP message the endpoint reads and writes (rhea's own type is untyped). */
export interface AmqpMessage {
  message_id?: unknown;
  correlation_id?: unknown;
  content_type?: string;
  subject?: string;
  to?: string;
  reply_to?: string;
  reply_to_group_id?: string;
  group_id?: string;
  ttl?: number;
  delivery_count?: number;
  durable?: boolean;
  body?: unknown;
  application_properties?: Record<string, unknown>;
  message_annotations?: Record<string, unknown>;
}

/** rhea's section of a body: `data` (0x75) holding bytes, or `amqp-sequence` (0x76). */
interface Section {
  readonly typecode: number;
  readonly content: unknown;
  readonly multiple?: boolean;
}

const DATA = 0x75;

/** The message format of a Service Bus batch: one envelope whose data sections are each a whole message. */
export const BATCH_FORMAT = 0x80013700;

/** The messages one transfer carries: itself, or each message of a batch. */
export function messagesOfTransfer(message: unknown, format: number): AmqpMessage[] {
  if (format === 0) return [message as AmqpMessage];
  if (format !== BATCH_FORMAT || !Buffer.isBuffer(message))
    throw new TypeError(`message format ${format} is not one Service Bus sends`);
  const envelope = rhea.message.decode(message) as AmqpMessage;
  const section = envelope.body as Section | undefined;
  if (section?.typecode !== DATA) throw new TypeError("a batch's body must be data sections");
  const parts = section.multiple ? (section.content as unknown[]) : [section.content];
  return parts.map((part) => {
    if (!Buffer.isBuffer(part)) throw new TypeError("each data section of a batch must hold a message");
    return rhea.message.decode(part) as AmqpMessage;
  });
}

/** The bytes of a body made of data sections, or `undefined` for an `amqp-value` or `amqp-sequence` body. */
export function dataBytes(body: unknown): Buffer | undefined {
  const section = body as Section | undefined;
  if (section === null || typeof section !== "object" || section.typecode !== DATA) return undefined;
  const parts = section.multiple ? (section.content as unknown[]) : [section.content];
  return Buffer.concat(parts.map((part) => (Buffer.isBuffer(part) ? part : Buffer.alloc(0))));
}

/** A body that is not data sections, kept exactly: the message encoded with nothing but its body. */
export function encodeBody(body: unknown): Buffer {
  return rhea.message.encode({ body });
}

/** A body kept by {@link encodeBody}. */
export function decodeBody(bytes: Uint8Array): unknown {
  return (rhea.message.decode(Buffer.from(bytes)) as AmqpMessage).body;
}

/** Application properties kept exactly, with their AMQP types: encoded as a message holding nothing else. */
export function encodeApplicationProperties(properties: Record<string, unknown>): string {
  return rhea.message.encode({ application_properties: properties }).toString("base64");
}

/** Application properties kept by {@link encodeApplicationProperties}. */
export function decodeApplicationProperties(encoded: string): Record<string, unknown> {
  return (rhea.message.decode(Buffer.from(encoded, "base64")) as AmqpMessage).application_properties ?? {};
}

/** A data section holding `bytes`. */
export function dataSection(bytes: Uint8Array): unknown {
  return rhea.message.data_section(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

/** A value as text, for the engine's string attributes (what SQS clients of the same queue read). */
export function attributeText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value instanceof Date) return value.toISOString();
  if (Buffer.isBuffer(value)) return value.toString("base64");
  if (value === null || value === undefined) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}
