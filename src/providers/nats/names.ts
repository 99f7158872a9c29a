import { QueueError } from "../../core/errors.js";

/** The prefix of everything the provider makes when the config names none. */
export const DEFAULT_STREAM_PREFIX = "qr";

const PREFIX = /^[A-Za-z0-9_-]{1,32}$/;
const PLAIN = /[A-Za-z0-9-]/;

/**
 * A name as one token of a subject, a stream name and a KV key alike: letters, digits and `-`
 * stay, every other character becomes `_` and its code in hex (`.` is `_2e`, `_` is `_5f`), so
 * distinct names stay distinct and none holds a subject's separators or wildcards.
 */
export function token(name: string): string {
  let out = "";
  for (const char of name) out += PLAIN.test(char) ? char : `_${char.codePointAt(0)!.toString(16)}_`;
  return out;
}

/** The name a {@link token} stands for. */
export function untoken(text: string): string {
  return text.replace(/_([0-9a-f]+)_/g, (_match, hex: string) =>
    String.fromCodePoint(Number.parseInt(hex, 16)),
  );
}

/** The stream prefix of a config, checked: it must fit a stream name and a subject token. */
export function checkedPrefix(prefix: string | undefined): string {
  const value = prefix ?? DEFAULT_STREAM_PREFIX;
  if (typeof value !== "string" || !PREFIX.test(value))
    throw new QueueError(
      "Configuration",
      "streamPrefix must be 1 to 32 letters, digits, '_' or '-' (it names streams, subjects and buckets)",
    );
  return value;
}

/** Where a queue's messages live on the broker: its stream, its subjects and its consumers. */
export interface QueueNames {
  readonly stream: string;
  /** Every subject of the queue (the stream's one subject filter). */
  readonly all: string;
  /** Messages ready for the queue's work consumer. */
  readonly ready: string;
  /** Messages waiting for their delay to end, read by the delay consumer. */
  readonly delayed: string;
  /** The subjects of every session's messages. */
  readonly sessions: string;
  /** The durable pull consumer all clients share for ready messages. */
  readonly workConsumer: string;
  /** The durable pull consumer that moves messages whose delay ended to their subject. */
  readonly delayConsumer: string;
  /** The subject of one session's messages. */
  session(sessionId: string): string;
}

/** The broker names of `queue` under `prefix`. */
export function queueNames(prefix: string, queue: string): QueueNames {
  const base = `${prefix}.q.${token(queue)}`;
  return {
    stream: `${prefix}_q_${token(queue)}`,
    all: `${base}.>`,
    ready: `${base}.m`,
    delayed: `${base}.d`,
    sessions: `${base}.s.*`,
    workConsumer: "work",
    delayConsumer: "delay",
    session: (sessionId) => `${base}.s.${token(sessionId)}`,
  };
}

/** The delayed subjects of every queue under `prefix` (see {@link QueueNames.delayed}). */
export function allDelayed(prefix: string): string {
  return `${prefix}.q.*.d`;
}

/** The KV bucket of the queue catalog under `prefix`. */
export function catalogBucket(prefix: string): string {
  return `${prefix}_queues`;
}

/** The KV bucket of session locks and states under `prefix`. */
export function sessionBucket(prefix: string): string {
  return `${prefix}_sessions`;
}
