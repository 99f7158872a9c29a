import { AckPolicy, DeliverPolicy, RetentionPolicy, StorageType } from "@nats-io/jetstream";
import { nanos } from "@nats-io/transport-node";
import type { QueueOptions } from "../../core/admin.js";
import type { Clock } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import { validateQueueName } from "../../core/validation.js";
import type { QueueDefaults } from "../../rules/queue-defaults.js";
import { deadLetterQueueRecord, type QueueRecord, queueRecord } from "../../rules/queue-records.js";
import type { NatsLink } from "./connection.js";
import { apiCode } from "./errors.js";
import { KvBucket } from "./kv-bucket.js";
import { lostRace } from "./kv-races.js";
import { catalogBucket, queueNames, token } from "./names.js";

/** How long the delay consumer holds a message it is moving (it acks within one publish). */
const DELAY_ACK_WAIT_MS = 30_000;

/**
 * The queues of one prefix: their records in a KV bucket (every process sees the same queues,
 * `listQueues` reads its keys) and, for each, a work-queue stream with its two shared durable
 * pull consumers: `work` for ready messages (its ack wait is the queue's lock) and `delay` for
 * messages waiting out a delay.
 */
export class QueueCatalog {
  readonly #link: NatsLink;
  readonly #prefix: string;
  readonly #defaults: QueueDefaults;
  readonly #clock: Clock;
  /** Forgets what the provider kept of a queue of the same name before (marks, deduplication ids). */
  readonly #forget: (queue: string) => Promise<void>;
  readonly #bucket: KvBucket;
  /** Records read lately, by queue name (`null`: no such queue), all forgotten at any change of the catalog. */
  readonly #known = new Map<string, QueueRecord | null>();
  /** Counts the changes to the catalog seen (any key, by any process), and reconnects. */
  #generation = 0;
  #reconnects: number;

  constructor(
    link: NatsLink,
    prefix: string,
    defaults: QueueDefaults,
    clock: Clock,
    forget: (queue: string) => Promise<void>,
  ) {
    this.#link = link;
    this.#forget = forget;
    this.#bucket = new KvBucket(link, catalogBucket(prefix), {});
    this.#prefix = prefix;
    this.#defaults = defaults;
    this.#clock = clock;
    this.#reconnects = link.reconnects;
    // Every write to the catalog, from any process, published to this connection before the
    // writer hears it was stored: an answer this client reads after another process changed the
    // catalog comes after the change itself (see {@link generation}).
    link.nc.subscribe(`$KV.${catalogBucket(prefix)}.>`, { callback: () => this.#changed() });
  }

  #changed(): void {
    this.#generation++;
    this.#known.clear();
  }

  /**
   * Changes to the catalog seen so far. A change another process made before this client sent a
   * request reaches this client before that request's answer (one connection, in order), so an
   * operation that finds the same generation once its answers came acted on records that held
   * when the broker answered. A reconnect counts as a change (what was published meanwhile was missed).
   */
  get generation(): number {
    if (this.#link.reconnects !== this.#reconnects) {
      this.#reconnects = this.#link.reconnects;
      this.#changed();
    }
    return this.#generation;
  }

  /** The record of `name`, or undefined when there is no such queue, read from the broker. */
  async find(name: string): Promise<QueueRecord | undefined> {
    validateQueueName(name);
    return (await this.#bucket.entry(token(name), `reading queue ${name}`))?.json<QueueRecord>();
  }

  /**
   * The record of `name` as last read, when no change to the catalog was seen since; else read
   * (see {@link find}). A caller checks {@link generation} once its answers came: a change seen
   * meanwhile may have made what it used stale.
   */
  async known(name: string): Promise<QueueRecord | undefined> {
    const generation = this.generation;
    const known = this.#known.get(name);
    if (known !== undefined) return known ?? undefined;
    const record = await this.find(name);
    // A change seen while the read was under way may have come after it was answered.
    if (generation === this.generation) this.#known.set(name, record ?? null);
    return record;
  }

  /** The record of `name`; `QueueNotFound` when there is none. */
  async require(name: string): Promise<QueueRecord> {
    const record = await this.find(name);
    if (record === undefined) throw new QueueError("QueueNotFound", `queue ${name} does not exist`);
    return record;
  }

  /** Creates `name` with `options` (its stream, consumers and catalog entry), and its dead-letter queue when missing. */
  async create(name: string, options: QueueOptions): Promise<QueueRecord> {
    const record = queueRecord(name, options, this.#defaults, this.#clock.now());
    if ((await this.find(name)) !== undefined)
      throw new QueueError("QueueAlreadyExists", `queue ${name} already exists`);
    await this.#insert(record);
    if (record.deadLetterQueue !== null) await this.ensureDeadLetterQueue(record);
    return record;
  }

  /** Makes the dead-letter queue `source` names when it is missing (a deleted one comes back when a message needs it). */
  async ensureDeadLetterQueue(source: QueueRecord): Promise<QueueRecord | undefined> {
    if (source.deadLetterQueue === null) return undefined;
    const found = await this.find(source.deadLetterQueue);
    if (found !== undefined) return found;
    const record = deadLetterQueueRecord(source.deadLetterQueue, source, this.#clock.now());
    try {
      await this.#insert(record);
      return record;
    } catch (error) {
      if (!QueueError.is(error, "QueueAlreadyExists")) throw error;
      return this.find(source.deadLetterQueue);
    }
  }

  /** The stream and consumers first, then the catalog entry: a listed queue always has its stream. */
  async #insert(record: QueueRecord): Promise<void> {
    await this.#ensureStream(record);
    // A queue made again numbers its messages from 1 and deduplicates afresh: what was kept of the one before goes.
    await this.#forget(record.name);
    const kv = await this.#bucket.open();
    try {
      await this.#link.call(`creating queue ${record.name}`, () =>
        kv.create(token(record.name), JSON.stringify(record)),
      );
    } catch (error) {
      // Another process made it first (the key exists): its stream is the one just ensured.
      if (lostRace(error))
        throw new QueueError("QueueAlreadyExists", `queue ${record.name} already exists`, { cause: error });
      throw error;
    } finally {
      this.#changed();
    }
  }

  async #ensureStream(record: QueueRecord): Promise<void> {
    const names = queueNames(this.#prefix, record.name);
    const jsm = this.#link.jsm;
    const stream = {
      name: names.stream,
      subjects: [names.all],
      retention: RetentionPolicy.Workqueue,
      storage: StorageType.File,
      allow_direct: true,
      // A window of 0 would be the server's default of two minutes: no message then carries an id to match.
      duplicate_window: nanos(Math.max(record.deduplicationWindowMs, 1_000)),
    };
    await this.#link.call(`creating the stream of queue ${record.name}`, async () => {
      try {
        await jsm.streams.add(stream);
      } catch (error) {
        // A stream left by a queue deleted half way (or made with other settings) is made again.
        if (apiCode(error) !== 10058) throw error;
        await jsm.streams.delete(names.stream);
        await jsm.streams.add(stream);
      }
      await jsm.consumers.add(names.stream, {
        durable_name: names.workConsumer,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: nanos(Math.max(record.lockDurationMs, 1)),
        max_deliver: -1,
        filter_subject: names.ready,
        max_ack_pending: -1,
      });
      await jsm.consumers.add(names.stream, {
        durable_name: names.delayConsumer,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: nanos(DELAY_ACK_WAIT_MS),
        max_deliver: -1,
        filter_subject: names.delayed,
        max_ack_pending: -1,
      });
    });
  }

  /** Deletes `name`'s stream and catalog entry; `QueueNotFound` when there is none. */
  async delete(name: string): Promise<void> {
    await this.require(name);
    const kv = await this.#bucket.open();
    // The entry first: a queue half deleted is not listed, and its stream is made again with it.
    await this.#link
      .call(`deleting queue ${name}`, () => kv.delete(token(name)))
      .finally(() => this.#changed());
    await this.#link.call(`deleting the stream of queue ${name}`, async () => {
      try {
        await this.#link.jsm.streams.delete(queueNames(this.#prefix, name).stream);
      } catch (error) {
        if (apiCode(error) !== 10059) throw error;
      }
    });
  }

  /** Every queue's record. */
  async all(): Promise<QueueRecord[]> {
    const kv = await this.#bucket.open();
    const keys = await this.#link.call("listing queues", async () => {
      const found: string[] = [];
      for await (const key of await kv.keys()) found.push(key);
      return found;
    });
    const records = await Promise.all(
      keys.map(async (key) => (await this.#bucket.entry(key, "listing queues"))?.json<QueueRecord>()),
    );
    return records.filter((record): record is QueueRecord => record !== undefined);
  }

  /** The broker names of `queue`. */
  names(queue: string): ReturnType<typeof queueNames> {
    return queueNames(this.#prefix, queue);
  }
}
