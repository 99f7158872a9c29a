import type { Channel, Message } from "amqplib";
import type { PeekedMessage, QueueAdmin, QueueInfo, QueueOptions, QueueStats } from "../../core/admin.js";
import type { Clock } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import { DEAD_LETTER_ATTRIBUTES } from "../../rules/dead-letters.js";
import type { QueueDefaults } from "../../rules/queue-defaults.js";
import {
  deadLetterQueueOfRecord,
  deadLetterQueueRecord,
  queueInfo,
  queueRecord,
} from "../../rules/queue-records.js";
import {
  belongsToTopic,
  subscriptionQueueToCreate,
  subscriptionQueueToDelete,
} from "../../rules/topic-records.js";
import type { Catalog, CatalogEntry } from "./catalog.js";
import { isNotFound, type RabbitConnection } from "./connection.js";
import { declareQueue } from "./declarations.js";
import type { HeldMessages } from "./held-messages.js";
import {
  copyParts,
  copyWithDeliveries,
  deliveriesBefore,
  HEADERS,
  receivedAttributes,
} from "./message-mapping.js";
import type { BrokerNames } from "./names.js";

/** What the admin needs of its provider. */
export interface AdminDeps {
  readonly connection: RabbitConnection;
  readonly catalog: Catalog;
  readonly names: BrokerNames;
  readonly defaults: QueueDefaults;
  readonly clock: Clock;
  readonly held: HeldMessages;
  /** Deliveries this client holds unhanded (buffered by a consumer, or taken back by a session), by broker queue. */
  buffered(brokerQueue: string): number;
  /** Gives back what this client's consumer of `brokerQueue` buffered, so that the broker has it ready. */
  letGo(brokerQueue: string): Promise<void>;
  /** Resolves once what this client's stopped consumer of `brokerQueue` buffered is back in it. */
  givenBack(brokerQueue: string): Promise<void>;
  /** Removes the messages of `brokerQueue` this client's sessions took back (a purge); how many. */
  dropKept(brokerQueue: string): number;
  /** Stops this client's consumers of the broker queues of a deleted queue. */
  forget(queue: string, brokerQueues: readonly string[]): Promise<void>;
  /** The broker queue a message of `queue` with `sessionId` goes to (declaring a session's queues). */
  target(entry: CatalogEntry, sessionId: string | undefined): Promise<string>;
  /** Locks a session of `entry` as an accept does; undefined when another holds it. */
  lockSession(entry: CatalogEntry, sessionId: string): Promise<{ release(): Promise<void> } | undefined>;
}

/** The broker queues behind a queue: its own, its sessions' (with their locks and states) and its holding queues. */
function brokerQueuesOf(
  entry: CatalogEntry,
  names: BrokerNames,
): { messages: string[]; delayed: string[]; sessionObjects: string[] } {
  const name = entry.record.name;
  const sessions = [...entry.sessions];
  return {
    messages: [names.queue(name), ...sessions.map((id) => names.session(name, id))],
    delayed: [...entry.holdings],
    // Lock queues belong to their holders' connections and go with them.
    sessionObjects: sessions.map((id) => names.sessionState(name, id)),
  };
}

/**
 * Queue administration over AMQP 0.9.1 alone: the catalog stream holds what queues exist and
 * their settings; counts come from passive declares (ready messages), to which this client adds
 * the deliveries it holds, since the broker does not count unacknowledged ones there. Messages
 * locked by other clients are not counted (`lockedCount` is false, and they are neither active
 * nor in flight to a reader of counts). AMQP has no way to look at a message without taking it,
 * so there is no peek.
 */
export class RabbitMqAdmin implements QueueAdmin {
  readonly #deps: AdminDeps;

  constructor(deps: AdminDeps) {
    this.#deps = deps;
  }

  async createQueue(name: string, options: QueueOptions = {}): Promise<QueueInfo> {
    const refused = subscriptionQueueToCreate(name);
    if (refused !== undefined) throw refused;
    return this.makeQueue(name, options);
  }

  /** Makes a queue, a subscription's among them (its path, its dead-letter queue). */
  async makeQueue(name: string, options: QueueOptions = {}): Promise<QueueInfo> {
    if (options.deduplicationWindowMs !== undefined && options.deduplicationWindowMs > 0)
      throw new QueueError("Unsupported", "RabbitMQ has no deduplication: deduplicationWindowMs must be 0");
    const { catalog, names, clock, defaults } = this.#deps;
    const record = queueRecord(name, { ...options, deduplicationWindowMs: 0 }, defaults, clock.now());
    if (!(await catalog.create(record)))
      throw new QueueError("QueueAlreadyExists", `queue ${name} already exists`);
    await this.#channel(
      (channel) => declareQueue(channel, names.queue(name), record, names),
      `create ${name}`,
    );
    const deadLetterQueue = record.deadLetterQueue;
    if (deadLetterQueue !== null && (await catalog.get(deadLetterQueue)) === undefined)
      await this.createDeadLetterQueue(deadLetterQueue, record);
    return queueInfo(record);
  }

  /** Makes the dead-letter queue of `source` (a create that lost the race to another is fine). */
  async createDeadLetterQueue(name: string, source: ReturnType<typeof queueRecord>): Promise<void> {
    const { catalog, names, clock } = this.#deps;
    const record = deadLetterQueueRecord(name, source, clock.now());
    if (await catalog.create(record))
      await this.#channel(
        (channel) => declareQueue(channel, names.queue(name), record, names),
        `create ${name}`,
      );
  }

  async deleteQueue(name: string): Promise<void> {
    const entry = await this.#entry(name);
    if (belongsToTopic(name)) throw subscriptionQueueToDelete(name);
    await this.removeQueue(entry);
  }

  /** Deletes a queue (a subscription's among them) with every broker queue made for it. */
  async removeQueue(entry: CatalogEntry): Promise<void> {
    const name = entry.record.name;
    // The broker dead-letters by itself into the queue a source names, and drops what it cannot
    // route: a dead-letter queue in use stays until its sources are gone.
    const sources = (await this.#deps.catalog.all()).filter(
      (other) => other.record.deadLetterQueue === name && other.record.name !== name,
    );
    if (sources.length > 0)
      throw new QueueError(
        "Validation",
        `queue ${name} is the dead-letter queue of ${sources.map((other) => other.record.name).join(", ")}: delete those first`,
      );
    await this.#deps.catalog.delete(name);
    const { messages, delayed, sessionObjects } = brokerQueuesOf(entry, this.#deps.names);
    const all = [...messages, ...delayed, ...sessionObjects];
    // Deleted before this client lets go of what it holds there: a delivery given back to a queue
    // still there would count, and one on its last delivery would be dead-lettered.
    await this.#channel(async (channel) => {
      for (const brokerQueue of all) await channel.deleteQueue(brokerQueue);
    }, `delete ${name}`);
    await this.#deps.forget(name, all);
  }

  async listQueues(prefix?: string): Promise<string[]> {
    const names = (await this.#deps.catalog.all()).map((entry) => entry.record.name);
    // A subscription's queues are listed by listSubscriptions, as on every provider.
    return names
      .filter((name) => !belongsToTopic(name) && (prefix === undefined || name.startsWith(prefix)))
      .sort();
  }

  async getQueue(name: string): Promise<QueueInfo | null> {
    const entry = await this.#deps.catalog.get(name);
    return entry === undefined ? null : queueInfo(entry.record);
  }

  async getQueueStats(name: string): Promise<QueueStats> {
    const entry = await this.#entry(name);
    const { names, held } = this.#deps;
    const { messages, delayed } = brokerQueuesOf(entry, names);
    const counts = await this.#counts([...messages, ...delayed]);
    const mine = (brokerQueues: readonly string[]) =>
      held.countOf(new Set(brokerQueues)) +
      brokerQueues.reduce((sum, queue) => sum + this.#deps.buffered(queue), 0);
    const sum = (brokerQueues: readonly string[]) =>
      brokerQueues.reduce((total, queue) => total + (counts.get(queue) ?? 0), 0);
    let deadLettered = 0;
    const deadLetterQueue = entry.record.deadLetterQueue;
    const deadEntry = deadLetterQueue === null ? undefined : await this.#deps.catalog.get(deadLetterQueue);
    if (deadEntry !== undefined) {
      const dead = brokerQueuesOf(deadEntry, names).messages;
      const deadCounts = await this.#counts(dead);
      deadLettered = dead.reduce((total, queue) => total + (deadCounts.get(queue) ?? 0), 0) + mine(dead);
    }
    return { active: sum(messages) + mine(messages), inFlight: 0, delayed: sum(delayed), deadLettered };
  }

  async purgeQueue(name: string): Promise<number> {
    const entry = await this.#entry(name);
    const { messages, delayed } = brokerQueuesOf(entry, this.#deps.names);
    let removed = 0;
    // What this client holds is removed too; what other clients hold is theirs until they settle it.
    for (const held of this.#deps.held.of(new Set(messages))) {
      const taken = this.#deps.held.take(held.id);
      if (taken === undefined) continue;
      // A borrowed session stays held: its receiver still has the receipt, spent or not.
      taken.channel.ack(taken.message);
      removed++;
    }
    for (const brokerQueue of messages) {
      await this.#deps.letGo(brokerQueue);
      removed += this.#deps.dropKept(brokerQueue);
    }
    await this.#channel(async (channel) => {
      for (const brokerQueue of [...messages, ...delayed]) {
        try {
          removed += (await channel.purgeQueue(brokerQueue)).messageCount;
        } catch (error) {
          if (!isNotFound(error)) throw error;
          return;
        }
      }
    }, `purge ${name}`);
    return removed;
  }

  async deadLetterQueueOf(name: string): Promise<string> {
    return deadLetterQueueOfRecord(name, (await this.#deps.catalog.get(name))?.record);
  }

  async redrive(deadLetterQueue: string, target?: string): Promise<number> {
    const source = await this.#entry(deadLetterQueue);
    if (target !== undefined) await this.#entry(target);
    const { names } = this.#deps;
    let moved = await this.#redriveFrom(deadLetterQueue, names.queue(deadLetterQueue), target);
    // A session's messages move only while no one holds it: they are locked with it.
    for (const sessionId of source.sessions) {
      const lock = await this.#deps.lockSession(source, sessionId);
      if (lock === undefined) continue;
      try {
        moved += await this.#redriveFrom(deadLetterQueue, names.session(deadLetterQueue, sessionId), target);
      } finally {
        await lock.release();
      }
    }
    return moved;
  }

  /**
   * Moves what `brokerQueue` holds to where each message came from (or `target`), confirmed before
   * it is acknowledged. A message with nowhere to go goes back as a copy carrying its deliveries, as
   * a nack would count one more.
   */
  async #redriveFrom(
    deadLetterQueue: string,
    brokerQueue: string,
    target: string | undefined,
  ): Promise<number> {
    const { catalog, names, connection } = this.#deps;
    await this.#deps.letGo(brokerQueue);
    const publisher = await connection.publisher();
    const channel = await connection.channel();
    const kept: Message[] = [];
    let moved = 0;
    try {
      for (;;) {
        const message = await channel.get(brokerQueue, { noAck: false });
        if (message === false) break;
        const attributes = receivedAttributes(message, names);
        const destination = target ?? attributes[DEAD_LETTER_ATTRIBUTES.sourceQueue];
        const entry = destination === undefined ? undefined : await catalog.known(destination);
        if (entry === undefined || entry.record.name === deadLetterQueue) {
          kept.push(message);
          continue;
        }
        const session = message.properties.headers?.[HEADERS.session];
        // A message the broker dead-lettered into a session has that session; one without a
        // session moved to a FIFO queue takes the queue it comes from as its session.
        const sessionId =
          typeof session === "string"
            ? session
            : (names.sessionOf(deadLetterQueue, brokerQueue) ??
              (entry.record.fifo ? deadLetterQueue : undefined));
        const to = await this.#deps.target(entry, sessionId);
        // The message starts over: no dead-letter attributes, no deliveries counted.
        const parts = copyParts(message, (headers, carried) => {
          if (sessionId !== undefined) headers[HEADERS.session] = sessionId;
          delete headers[HEADERS.deliveries];
          delete headers[HEADERS.expires];
          for (const key of Object.values(DEAD_LETTER_ATTRIBUTES)) delete carried[key];
        });
        await publisher.publish(to, parts.content, parts.options);
        channel.ack(message);
        moved++;
      }
      for (const message of kept) {
        const parts = copyWithDeliveries(message, deliveriesBefore(message, brokerQueue), brokerQueue);
        await publisher.publish(brokerQueue, parts.content, parts.options);
        channel.ack(message);
      }
      await channel.checkQueue(brokerQueue);
    } catch (error) {
      if (isNotFound(error)) return moved;
      throw connection.failure(error, `redrive ${deadLetterQueue}`);
    } finally {
      await channel.close().catch(() => undefined);
    }
    return moved;
  }

  async peekMessages(): Promise<PeekedMessage[]> {
    throw new QueueError(
      "Unsupported",
      "AMQP 0.9.1 cannot look at a message without taking it: rabbitmq has no peek",
    );
  }

  async #entry(name: string): Promise<CatalogEntry> {
    const entry = await this.#deps.catalog.get(name);
    if (entry === undefined) throw new QueueError("QueueNotFound", `queue ${name} does not exist`);
    return entry;
  }

  /** Ready messages of each broker queue that exists (a passive declare each; a missing one closes its channel). */
  async #counts(brokerQueues: readonly string[]): Promise<Map<string, number>> {
    // A delivery on its way back from this client's stopped consumer is neither buffered nor ready yet.
    await Promise.all(brokerQueues.map((brokerQueue) => this.#deps.givenBack(brokerQueue)));
    const counts = new Map<string, number>();
    let channel: Channel | undefined;
    try {
      for (const brokerQueue of brokerQueues) {
        channel ??= await this.#deps.connection.channel();
        try {
          counts.set(brokerQueue, (await channel.checkQueue(brokerQueue)).messageCount);
        } catch (error) {
          if (!isNotFound(error)) throw error;
          channel = undefined;
        }
      }
    } catch (error) {
      throw this.#deps.connection.failure(error, "count messages");
    } finally {
      await channel?.close().catch(() => undefined);
    }
    return counts;
  }

  async #channel(work: (channel: Channel) => Promise<void>, what: string): Promise<void> {
    try {
      await this.#deps.connection.withChannel(work);
    } catch (error) {
      throw this.#deps.connection.failure(error, what);
    }
  }
}
