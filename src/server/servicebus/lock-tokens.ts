import { hash } from "node:crypto";
import type { QueueEngine } from "../../engine/queue-engine.js";
import type { LockReference } from "../../engine/records.js";

/**
 * Service Bus lock tokens, made from the engine's locks without a table of their own: a UUID
 * whose first 7 bytes are the message's sequence number and whose last 9 are a digest of the
 * queue and the engine's lock token. Settling one reads the message's current lock and checks
 * the digest, so a token survives a restart and a stale one never settles a newer lock.
 */

/** The 16 bytes of a lock token in RFC 4122 order (as `$management` carries them). */
export function lockTokenBytes(queue: string, seq: number, engineToken: string): Buffer {
  const bytes = Buffer.allocUnsafe(16);
  bytes.writeUIntBE(Math.floor(seq / 2 ** 8), 0, 6);
  bytes.writeUInt8(seq % 2 ** 8, 6);
  digest(queue, engineToken).copy(bytes, 7, 0, 9);
  return bytes;
}

/** A lock token as a delivery's tag carries it: in .NET order (see {@link dotnetGuidOrder}). */
export function deliveryTag(queue: string, seq: number, engineToken: string): Buffer {
  return swapGroups(lockTokenBytes(queue, seq, engineToken));
}

/** The lock a token refers to, if it still is the message's latest lock. */
export function lockOf(engine: QueueEngine, queue: string, token: Uint8Array): LockReference | undefined {
  if (token.length !== 16) return undefined;
  const bytes = Buffer.from(token.buffer, token.byteOffset, 16);
  const seq = bytes.readUIntBE(0, 6) * 2 ** 8 + bytes.readUInt8(6);
  const lockToken = engine.lockTokenOf(queue, seq);
  if (typeof lockToken !== "string" || !digest(queue, lockToken).subarray(0, 9).equals(bytes.subarray(7)))
    return undefined;
  return { queue, seq, lockToken };
}

/**
 * A token in .NET `Guid.ToByteArray()` order, as delivery tags carry it: the first three groups
 * byte-swapped. The same function turns it back.
 */
export function dotnetGuidOrder(bytes: Uint8Array): Buffer {
  return swapGroups(Buffer.from(bytes));
}

/** Byte-swaps the first three groups of a UUID's bytes in place (a view per group would be three Buffers per message). */
function swapGroups(bytes: Buffer): Buffer {
  swap(bytes, 0, 3);
  swap(bytes, 1, 2);
  swap(bytes, 4, 5);
  swap(bytes, 6, 7);
  return bytes;
}

function swap(bytes: Buffer, i: number, j: number): void {
  const byte = bytes[i]!;
  bytes[i] = bytes[j]!;
  bytes[j] = byte;
}

/** The usual text form of 16 RFC-ordered bytes. */
export function uuidText(bytes: Uint8Array): string {
  const hex = Buffer.from(bytes).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The 16 bytes of a UUID's text form, or `undefined` when it is not one. */
export function uuidBytes(text: string): Buffer | undefined {
  const hex = text.replace(/-/g, "");
  return /^[0-9a-fA-F]{32}$/.test(hex) ? Buffer.from(hex, "hex") : undefined;
}

/** The digest's first 9 bytes are a token's; the NUL keeps queue and token apart. */
function digest(queue: string, engineToken: string): Buffer {
  return hash("sha256", `${queue}\u0000${engineToken}`, "buffer");
}
