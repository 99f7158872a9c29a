// Seeded random garbage: a valid client conversation, frame by frame, with some of its frames
// mutated (bytes flipped, cut short, lengthened, re-sized, re-described or replaced).
import type { SasKey } from "../../../../src/server/servicebus/sas.js";
import {
  AMQP_HEADER,
  attachReceiver,
  attachSender,
  CODE,
  described,
  encodeMessage,
  flow,
  frame,
  frames,
  openAndBegin,
  putNamespaceToken,
  transfer,
} from "./wire.js";

/** A seeded generator of numbers in [0, 1) (mulberry32). */
export function randomOf(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Helpers over one generator. */
export class Dice {
  readonly #next: () => number;

  constructor(seed: number) {
    this.#next = randomOf(seed);
  }

  /** An integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.#next() * n);
  }

  /** One of `items`. */
  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }

  /** `n` random bytes. */
  bytes(n: number): Buffer {
    const out = Buffer.alloc(n);
    for (let i = 0; i < n; i++) out[i] = this.below(256);
    return out;
  }

  /** Whether a one-in-`n` chance came up. */
  chance(n: number): boolean {
    return this.below(n) === 0;
  }
}

/** The queue the random conversations talk to. */
export const RANDOM_QUEUE = "fuzz-random";

// The conversation: open, begin, a token on `$cbs`, a sender that sends a message, a receiver
// with credit, a `$management` request on its own pair of links, a disposition, detach, end, close.
/** A whole, valid conversation of a client, one buffer per frame (the protocol header first). */
export function conversation(key: SasKey): { name: string; bytes: Buffer }[] {
  const opening = openAndBegin();
  const header = AMQP_HEADER.length;
  const openLength = opening.readUInt32BE(header);
  const token = putNamespaceToken(key);
  const tokenAttachLength = token.readUInt32BE(0);
  return [
    { name: "header", bytes: opening.subarray(0, header) },
    { name: "open", bytes: opening.subarray(header, header + openLength) },
    { name: "begin", bytes: opening.subarray(header + openLength) },
    { name: "attach $cbs", bytes: token.subarray(0, tokenAttachLength) },
    { name: "put-token", bytes: token.subarray(tokenAttachLength) },
    { name: "attach sender", bytes: attachSender(1, "sender", RANDOM_QUEUE) },
    {
      name: "transfer",
      bytes: transfer(
        1,
        1,
        encodeMessage({
          message_id: "random-1",
          group_id: "g",
          application_properties: { n: 1, s: "x" },
          message_annotations: { "x-opt-partition-key": "p" },
          body: "hello",
        }),
      ),
    },
    { name: "attach receiver", bytes: attachReceiver(2, "receiver", RANDOM_QUEUE) },
    { name: "flow", bytes: flow(2, 5) },
    { name: "attach reply", bytes: attachReceiver(3, "replies", `${RANDOM_QUEUE}/$management`) },
    { name: "flow reply", bytes: flow(3, 10) },
    { name: "attach management", bytes: attachSender(4, "management", `${RANDOM_QUEUE}/$management`) },
    {
      name: "management request",
      bytes: transfer(
        4,
        2,
        encodeMessage({
          message_id: "request-1",
          reply_to: "replies",
          application_properties: { operation: "com.microsoft:peek-message" },
          body: { "from-sequence-number": 1, "message-count": 5 },
        }),
        { settled: true },
      ),
    },
    {
      name: "disposition",
      bytes: frame(
        0,
        frames.disposition({
          role: true,
          first: 0,
          settled: true,
          state: described(0x24, []),
        }),
      ),
    },
    { name: "detach", bytes: frame(0, frames.detach({ handle: 1, closed: true })) },
    { name: "end", bytes: frame(0, frames.end({})) },
    { name: "close", bytes: frame(0, frames.close({})) },
  ];
}

/** Descriptor codes a re-described frame gets: every performative, SASL frame, outcome and terminus, or any byte. */
const DESCRIPTORS = [
  CODE.open,
  CODE.begin,
  CODE.attach,
  CODE.flow,
  CODE.transfer,
  CODE.disposition,
  CODE.detach,
  CODE.end,
  CODE.close,
  0x1d,
  0x23,
  0x24,
  0x25,
  0x26,
  0x27,
  CODE.source,
  CODE.target,
  0x40,
  0x41,
  0x44,
  0x70,
  0x73,
  0x77,
];

/** Sizes a re-sized frame declares. */
const SIZES = [0, 1, 4, 7, 8, 9, 0xfffffff0, 0x7fffffff];

/** One frame changed at random; resolves the new bytes and what was done. */
export function mutate(dice: Dice, bytes: Buffer): { bytes: Buffer; how: string } {
  const out = Buffer.from(bytes);
  // A frame cut shorter than its size field (by an earlier mutation) has no size to fix.
  const resized = (buffer: Buffer) => {
    if (buffer.length >= 4) buffer.writeUInt32BE(buffer.length, 0);
    return buffer;
  };
  switch (dice.below(8)) {
    case 0: {
      const count = 1 + dice.below(3);
      const positions: number[] = [];
      for (let i = 0; i < count; i++) {
        // Mostly past the frame header, so that the frame still parses as one.
        const at = dice.chance(8) ? dice.below(out.length) : 8 + dice.below(Math.max(1, out.length - 8));
        if (at >= out.length) continue;
        out[at] = out[at]! ^ (1 + dice.below(255));
        positions.push(at);
      }
      return { bytes: out, how: `flip bytes ${positions.join(",")}` };
    }
    case 1: {
      const length = dice.below(out.length);
      return { bytes: out.subarray(0, length), how: `cut to ${length} bytes (size field unchanged)` };
    }
    case 2: {
      const length = 4 + dice.below(Math.max(1, out.length - 4));
      return {
        bytes: resized(Buffer.from(out.subarray(0, length))),
        how: `cut to ${length} bytes, size fixed`,
      };
    }
    case 3: {
      const extra = dice.bytes(1 + dice.below(64));
      return {
        bytes: resized(Buffer.concat([out, extra])),
        how: `lengthened by ${extra.length}, size fixed`,
      };
    }
    case 4: {
      const extra = dice.bytes(1 + dice.below(16));
      return { bytes: Buffer.concat([out, extra]), how: `${extra.length} bytes after it` };
    }
    case 5: {
      // A performative starts at offset 8: 0x00 (described), 0x53 (smallulong), its code.
      if (out.length > 10 && out[8] === 0x00 && out[9] === 0x53) {
        const code = dice.chance(4) ? dice.below(256) : dice.pick(DESCRIPTORS);
        out[10] = code;
        return { bytes: out, how: `descriptor 0x${code.toString(16)}` };
      }
      return { bytes: dice.bytes(out.length), how: "replaced by random bytes" };
    }
    case 6: {
      const size = dice.pick(SIZES);
      if (out.length >= 4) out.writeUInt32BE(size, 0);
      return { bytes: out, how: `size field 0x${size.toString(16)}` };
    }
    default: {
      const body = dice.bytes(dice.below(48));
      return {
        bytes: resized(Buffer.concat([out.subarray(0, Math.min(8, out.length)), body])),
        how: `body replaced by ${body.length} random bytes`,
      };
    }
  }
}

/** One random conversation: which frames were changed and how, and the bytes to send (one buffer per frame). */
export interface Mutant {
  readonly description: string;
  readonly chunks: readonly Buffer[];
  /** Whether the frames go out in one write, or each in its own. */
  readonly oneWrite: boolean;
}

/** The conversation with 1 to 3 of its frames (rarely the header) mutated. */
export function mutant(dice: Dice, key: SasKey): Mutant {
  const script = conversation(key);
  const changes: string[] = [];
  const count = 1 + dice.below(3);
  for (let i = 0; i < count; i++) {
    const index = dice.chance(20) ? 0 : 1 + dice.below(script.length - 1);
    const entry = script[index]!;
    const { bytes, how } = mutate(dice, entry.bytes);
    script[index] = { name: entry.name, bytes };
    changes.push(`${entry.name}: ${how}`);
  }
  // Sometimes the client stops early, as if it had vanished.
  const keep = dice.chance(4) ? 1 + dice.below(script.length) : script.length;
  if (keep < script.length) changes.push(`stops after ${script[keep - 1]!.name}`);
  const chunks = script.slice(0, keep).map((entry) => entry.bytes);
  if (chunks.some(defuseArrayBombs)) changes.push("array bomb defused");
  return {
    description: changes.join("; "),
    chunks,
    oneWrite: dice.chance(2),
  };
}

/** Type codes whose values take no bytes: null, true, false, uint 0, ulong 0, the empty list. */
const ZERO_WIDTH = new Set([0x40, 0x41, 0x42, 0x43, 0x44, 0x45]);

// rhea's decoder makes one object per array element whatever the bytes hold, so a flipped byte
// can ask it for 4 billion of them and end the process out of memory: the known-bug case "an
// array of 2^32 nulls" pins that down, and the random fuzz must not kill the test worker with it.
/** Lowers, in place, the count (past 65 536) of any array32 of zero-width or described elements; resolves whether there was one. */
export function defuseArrayBombs(bytes: Buffer): boolean {
  let found = false;
  for (let at = 0; at + 9 < bytes.length; at++) {
    if (bytes[at] !== 0xf0) continue;
    const element = bytes[at + 9]!;
    if (bytes.readUInt32BE(at + 5) > 65_536 && (ZERO_WIDTH.has(element) || element === 0x00)) {
      bytes.writeUInt32BE(16, at + 5);
      found = true;
    }
  }
  return found;
}
