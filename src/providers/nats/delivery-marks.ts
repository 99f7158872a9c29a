import { QueueError } from "../../core/errors.js";
import { MAX_LOCK_MS } from "../../rules/queue-defaults.js";
import type { NatsLink } from "./connection.js";
import { KvBucket } from "./kv-bucket.js";
import { lostRace, MAX_RACES } from "./kv-races.js";
import { token } from "./names.js";
import type { AckInfo } from "./pulls.js";

/**
 * Which deliveries of a plain queue's messages are settled, in a KV bucket per prefix: the key
 * of a message holds the last delivery count settled. JetStream takes an ack or a nak for a
 * pending message from anyone holding its ack subject, even one of a delivery given back since,
 * and says nothing either way; so each settle first marks its delivery spent, revision-checked,
 * and a receipt whose delivery is spent (settled by this client or another, twice, or overtaken
 * by a later delivery) is `InvalidReceipt` and never reaches JetStream. A mark outlives any lock
 * (12 hours), after which its receipt has expired anyway.
 */
export class DeliveryMarks {
  readonly #link: NatsLink;
  readonly #bucket: KvBucket;

  constructor(link: NatsLink, prefix: string) {
    this.#link = link;
    this.#bucket = new KvBucket(link, `${prefix}_marks`, { ttl: MAX_LOCK_MS });
  }

  /**
   * Marks the delivery `info` names spent; `InvalidReceipt` when it (or a later one) was already.
   * Resolves the mark's revision. A first settle of a message finds no mark: the create alone
   * answers, and only a key that exists is read and updated.
   */
  async spend(queue: string, info: AckInfo): Promise<number> {
    const key = markKey(queue, info);
    const value = String(info.deliveryCount);
    const what = `settling a message of ${queue}`;
    try {
      return await this.#bucket.createNew(key, value, what);
    } catch (error) {
      if (!lostRace(error)) throw error;
    }
    const kv = await this.#bucket.open();
    for (let attempt = 1; ; attempt++) {
      const entry = await this.#link.call(what, () => kv.get(key));
      const spent = entry === null || entry.operation !== "PUT" ? 0 : Number(entry.string());
      if (spent >= info.deliveryCount) throw settled(queue);
      try {
        return await this.#link.call(what, () =>
          entry === null ? kv.create(key, value) : kv.update(key, value, entry.revision),
        );
      } catch (error) {
        // Others keep winning: fail rather than spin (the standard client may try again).
        if (!lostRace(error) || attempt >= MAX_RACES) throw error;
      }
    }
  }

  /**
   * Takes back the mark `spend` wrote at `revision` for a message found gone (purged, or its
   * queue deleted): a queue made again numbers its messages from 1, and its message of that
   * number must not find its delivery spent. Left alone once anyone wrote the key since.
   */
  async unspend(queue: string, info: AckInfo, revision: number): Promise<void> {
    const kv = await this.#bucket.open();
    try {
      await this.#link.call(`settling a message of ${queue}`, () =>
        kv.delete(markKey(queue, info), { previousSeq: revision }),
      );
    } catch (error) {
      if (!lostRace(error)) throw error;
    }
  }

  /** Fails with `InvalidReceipt` when the delivery `info` names is spent. */
  async check(queue: string, info: AckInfo): Promise<void> {
    const entry = await this.#bucket.entry(markKey(queue, info), `reading a message of ${queue}`);
    if (entry !== undefined && Number(entry.string()) >= info.deliveryCount) throw settled(queue);
  }

  /** Forgets the marks of `queue` (made again, its stream sequences start over). */
  forget(queue: string): Promise<void> {
    return this.#bucket.forgetQueue(queue);
  }
}

function markKey(queue: string, info: AckInfo): string {
  return `${token(queue)}.${info.streamSequence}`;
}

function settled(queue: string): QueueError {
  return new QueueError("InvalidReceipt", `this delivery of a message of ${queue} was settled already`);
}
