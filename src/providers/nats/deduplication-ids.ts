import type { NatsLink } from "./connection.js";
import { KvBucket } from "./kv-bucket.js";
import { token } from "./names.js";

/** How long the id of a deduplicated message is remembered once stored: a day. */
const REMEMBER_MS = 86_400_000;

/**
 * The ids of messages sent with a deduplication id, in a KV bucket per prefix. JetStream drops a
 * repeat within the stream's duplicate window (`Nats-Msg-Id`) and tells the original's stream
 * sequence, but once the original is received and completed nothing on the stream says its id,
 * which a repeat answers; this bucket does (for a day; past that a repeat still is dropped, and
 * answers an id of its own).
 */
export class DeduplicationIds {
  readonly #link: NatsLink;
  readonly #bucket: KvBucket;

  constructor(link: NatsLink, prefix: string) {
    this.#link = link;
    this.#bucket = new KvBucket(link, `${prefix}_dedup`, { ttl: REMEMBER_MS });
  }

  static #key(queue: string, deduplicationId: string): string {
    return `${token(queue)}.${token(deduplicationId)}`;
  }

  /** Remembers that `deduplicationId` on `queue` stands for `messageId`. */
  async remember(queue: string, deduplicationId: string, messageId: string): Promise<void> {
    const kv = await this.#bucket.open();
    await this.#link.call(`sending to ${queue}`, () =>
      kv.put(DeduplicationIds.#key(queue, deduplicationId), messageId),
    );
  }

  /** The id of the message `deduplicationId` stood for on `queue`, if remembered. */
  async original(queue: string, deduplicationId: string): Promise<string | undefined> {
    const entry = await this.#bucket.entry(
      DeduplicationIds.#key(queue, deduplicationId),
      `sending to ${queue}`,
    );
    return entry?.string();
  }

  /** Forgets the ids of `queue` (made again: its stream deduplicates from scratch). */
  forget(queue: string): Promise<void> {
    return this.#bucket.forgetQueue(queue);
  }
}
