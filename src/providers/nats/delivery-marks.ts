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

  /** Marks the delivery `info` names spent; `InvalidReceipt` when it (or a later one) was already. */
  async spend(queue: string, info: AckInfo): Promise<void> {
    const kv = await this.#bucket.open();
    const key = `${token(queue)}.${info.streamSequence}`;
    for (let attempt = 1; ; attempt++) {
      const entry = await this.#link.call(`settling a message of ${queue}`, () => kv.get(key));
      const spent = entry === null || entry.operation !== "PUT" ? 0 : Number(entry.string());
      if (spent >= info.deliveryCount) throw settled(queue);
      try {
        await this.#link.call(`settling a message of ${queue}`, () =>
          entry === null
            ? kv.create(key, String(info.deliveryCount))
            : kv.update(key, String(info.deliveryCount), entry.revision),
        );
        return;
      } catch (error) {
        // Others keep winning: fail rather than spin (the standard client may try again).
        if (!lostRace(error) || attempt >= MAX_RACES) throw error;
      }
    }
  }

  /** Fails with `InvalidReceipt` when the delivery `info` names is spent. */
  async check(queue: string, info: AckInfo): Promise<void> {
    const entry = await this.#bucket.entry(
      `${token(queue)}.${info.streamSequence}`,
      `reading a message of ${queue}`,
    );
    if (entry !== undefined && Number(entry.string()) >= info.deliveryCount) throw settled(queue);
  }

  /** Forgets the marks of `queue` (made again, its stream sequences start over). */
  forget(queue: string): Promise<void> {
    return this.#bucket.forgetQueue(queue);
  }
}

function settled(queue: string): QueueError {
  return new QueueError("InvalidReceipt", `this delivery of a message of ${queue} was settled already`);
}
