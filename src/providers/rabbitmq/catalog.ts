import { randomUUID } from "node:crypto";
import type { Channel, ConsumeMessage } from "amqplib";
import { QueueError } from "../../core/errors.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import type { RabbitConnection } from "./connection.js";
import { isTopicRecord, type TopicCatalogRecord, TopicFold } from "./topic-catalog.js";

/** What the catalog knows of one queue: its settings and the broker queues made for it since. */
export interface CatalogEntry {
  /** The id of the create record that made it: two processes creating one name learn which won. */
  readonly id: string;
  readonly record: QueueRecord;
  /** Session ids that have had a queue of their own, in the order they first came. */
  readonly sessions: Set<string>;
  /** Session ids in the order their first messages were sent: the order accept-next offers them in. */
  readonly sent: Set<string>;
  /** Holding queues (broker names) made for this queue's delayed messages. */
  readonly holdings: Set<string>;
}

/** One record of the catalog stream. */
type CatalogRecord =
  | { readonly kind: "create"; readonly id: string; readonly record: QueueRecord }
  | { readonly kind: "delete"; readonly name: string }
  | { readonly kind: "session"; readonly queue: string; readonly sessionId: string; readonly sent?: boolean }
  | { readonly kind: "holding"; readonly queue: string; readonly brokerQueue: string }
  | { readonly kind: "sync"; readonly token: string }
  | TopicCatalogRecord;

/** How many records the catalog's reader takes before it acknowledges (a stream needs a prefetch). */
const CATALOG_PREFETCH = 1_000;

/**
 * The queues of one prefix and their settings, readable by every process: AMQP 0.9.1 can neither
 * list queues nor read a queue's arguments without the management plugin, so the provider keeps
 * its own catalog on the broker, as a stream (`x-queue-type: stream`) of create, delete, session
 * and holding-queue records (and the topics' records, see {@link TopicFold}). Every client reads the stream from its first record with one
 * long-lived consumer and folds it into a map. A stream keeps one order for every reader, so all
 * clients agree on which of two concurrent creates of one name came first. To read consistently a
 * client publishes a unique sync record and waits until its reader has seen it: everything
 * published before is then folded in.
 */
export class Catalog {
  readonly #connection: RabbitConnection;
  readonly #stream: string;
  #entries = new Map<string, CatalogEntry>();
  /** The topics, their subscriptions and rules, folded from the same stream. */
  readonly topics = new TopicFold();
  readonly #syncs = new Map<string, { resolve: () => void; reject: (error: unknown) => void }>();
  #reader: Promise<Channel> | undefined;

  constructor(connection: RabbitConnection, stream: string) {
    this.#connection = connection;
    this.#stream = stream;
    connection.onLost(() => this.#restart());
  }

  /** The entry of `name` as last read, without asking the broker. */
  cached(name: string): CatalogEntry | undefined {
    return this.#entries.get(name);
  }

  /** The entry of `name` after reading everything published so far. */
  async get(name: string): Promise<CatalogEntry | undefined> {
    await this.sync();
    return this.#entries.get(name);
  }

  /** The entry of `name` as last read, or after reading everything when it is not known yet. */
  async known(name: string): Promise<CatalogEntry | undefined> {
    return this.#entries.get(name) ?? (await this.get(name));
  }

  /** Every queue's entry after reading everything published so far. */
  async all(): Promise<CatalogEntry[]> {
    await this.sync();
    return [...this.#entries.values()];
  }

  /** Publishes a create record; resolves whether it won (no queue of that name came before it). */
  async create(record: QueueRecord): Promise<boolean> {
    const id = randomUUID();
    await this.#append({ kind: "create", id, record });
    await this.sync();
    return this.#entries.get(record.name)?.id === id;
  }

  /** Publishes a delete record and reads up to it. */
  async delete(name: string): Promise<void> {
    await this.#append({ kind: "delete", name });
    await this.sync();
  }

  /** Notes that session `sessionId` of `queue` has a queue of its own, and whether a message was sent to it (once per client is enough). */
  async addSession(queue: string, sessionId: string, sent: boolean): Promise<void> {
    const entry = this.#entries.get(queue);
    if (entry?.sessions.has(sessionId) && (!sent || entry.sent.has(sessionId))) return;
    await this.#append({ kind: "session", queue, sessionId, sent });
  }

  /** Notes that `brokerQueue` holds delayed messages of `queue`. */
  async addHolding(queue: string, brokerQueue: string): Promise<void> {
    if (this.#entries.get(queue)?.holdings.has(brokerQueue)) return;
    await this.#append({ kind: "holding", queue, brokerQueue });
  }

  /** Publishes a record of topics (folded into {@link topics}); resolves once the broker has it. */
  async appendTopic(record: TopicCatalogRecord): Promise<void> {
    await this.#append(record);
  }

  /** Reads the stream up to a record published now. */
  async sync(): Promise<void> {
    await this.#start();
    const token = randomUUID();
    const seen = new Promise<void>((resolve, reject) => this.#syncs.set(token, { resolve, reject }));
    // A loss may end the wait before the publish returns: the rejection is awaited below.
    seen.catch(() => undefined);
    try {
      await this.#append({ kind: "sync", token });
    } catch (error) {
      this.#syncs.delete(token);
      throw error;
    }
    await seen;
  }

  async #append(record: CatalogRecord): Promise<void> {
    await this.#start();
    const publisher = await this.#connection.publisher();
    await publisher.publish(this.#stream, Buffer.from(JSON.stringify(record)), { persistent: true });
  }

  /** Declares the stream and starts the reader from its first record, once per connection. */
  #start(): Promise<Channel> {
    this.#reader ??= (async () => {
      const channel = await this.#connection.channel();
      try {
        await channel.assertQueue(this.#stream, { durable: true, arguments: { "x-queue-type": "stream" } });
        await channel.prefetch(CATALOG_PREFETCH);
        this.#entries = new Map();
        this.topics.clear();
        await channel.consume(this.#stream, (message) => this.#read(channel, message), {
          noAck: false,
          arguments: { "x-stream-offset": "first" },
        });
        return channel;
      } catch (error) {
        await channel.close().catch(() => undefined);
        throw this.#connection.failure(error, `read the queue catalog ${this.#stream}`);
      }
    })().catch((error: unknown) => {
      this.#reader = undefined;
      throw error;
    });
    return this.#reader;
  }

  #read(channel: Channel, message: ConsumeMessage | null): void {
    if (message === null) {
      // The stream was deleted under the reader: start again on the next use.
      this.#restart();
      return;
    }
    channel.ack(message);
    let record: CatalogRecord;
    try {
      record = JSON.parse(message.content.toString("utf8")) as CatalogRecord;
    } catch {
      return;
    }
    this.#fold(record);
  }

  #fold(record: CatalogRecord): void {
    if (isTopicRecord(record)) {
      this.topics.fold(record);
      return;
    }
    switch (record.kind) {
      case "create":
        if (!this.#entries.has(record.record.name))
          this.#entries.set(record.record.name, {
            id: record.id,
            record: record.record,
            sessions: new Set(),
            sent: new Set(),
            holdings: new Set(),
          });
        return;
      case "delete":
        this.#entries.delete(record.name);
        return;
      case "session":
        this.#entries.get(record.queue)?.sessions.add(record.sessionId);
        if (record.sent === true) this.#entries.get(record.queue)?.sent.add(record.sessionId);
        return;
      case "holding":
        this.#entries.get(record.queue)?.holdings.add(record.brokerQueue);
        return;
      case "sync": {
        const done = this.#syncs.get(record.token);
        this.#syncs.delete(record.token);
        done?.resolve();
      }
    }
  }

  /** Forgets the reader (its connection or stream is gone); the next use reads from the first record again. */
  #restart(): void {
    const reader = this.#reader;
    this.#reader = undefined;
    void reader?.then((channel) => channel.close()).catch(() => undefined);
    // Syncs under way will never see their record on the old reader; they fail and are retried.
    for (const [token, done] of this.#syncs) {
      this.#syncs.delete(token);
      done.reject(
        new QueueError(
          "ConnectionFailed",
          `lost the queue catalog on RabbitMQ at ${this.#connection.address}`,
        ),
      );
    }
  }
}
