import type { PeekedMessage, QueueAdmin, QueueInfo, QueueOptions, QueueStats } from "../../core/admin.js";
import type { Clock } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import { peekedMessage, validatePeek } from "../../core/peeked-message.js";
import { validateQueueName } from "../../core/validation.js";
import { deadLetterQueueOfRecord, queueInfo } from "../../rules/queue-records.js";
import type { NatsLink } from "./connection.js";
import { apiCode } from "./errors.js";
import { messageFields, readMeta } from "./message-mapping.js";
import type { QueueCatalog } from "./queue-catalog.js";
import type { SessionLocks } from "./session-locks.js";

/** What the admin needs from the provider. */
export interface NatsAdminDeps {
  readonly link: NatsLink;
  readonly prefix: string;
  readonly catalog: QueueCatalog;
  readonly locks: SessionLocks;
  readonly clock: Clock;
  /** Moves the messages of a dead-letter queue back to their source queue (or `target`). */
  readonly redrive: (deadLetterQueue: string, target?: string) => Promise<number>;
}

/**
 * Queue administration on JetStream: the catalog bucket for queues and their settings, stream
 * info with per-subject counts for the stats, direct gets for peeks, purges of the stream.
 */
export class NatsAdmin implements QueueAdmin {
  readonly #deps: NatsAdminDeps;

  constructor(deps: NatsAdminDeps) {
    this.#deps = deps;
  }

  async createQueue(name: string, options: QueueOptions = {}): Promise<QueueInfo> {
    return queueInfo(await this.#deps.catalog.create(name, options));
  }

  async deleteQueue(name: string): Promise<void> {
    const record = await this.#deps.catalog.require(name);
    await this.#deps.catalog.delete(name);
    if (record.fifo) await this.#deps.locks.forgetQueue(name);
  }

  async listQueues(prefix = ""): Promise<string[]> {
    const records = await this.#deps.catalog.all();
    return records
      .map((record) => record.name)
      .filter((name) => name.startsWith(prefix))
      .sort();
  }

  async getQueue(name: string): Promise<QueueInfo | null> {
    const record = await this.#deps.catalog.find(name);
    return record === undefined ? null : queueInfo(record);
  }

  async getQueueStats(name: string): Promise<QueueStats> {
    const { catalog } = this.#deps;
    const record = await catalog.require(name);
    const names = catalog.names(name);
    const subjects = await this.#subjectCounts(names.stream, names.all, name);
    const delayed = subjects.get(names.delayed) ?? 0;
    let total = 0;
    for (const count of subjects.values()) total += count;
    let deadLettered = 0;
    if (record.deadLetterQueue !== null && (await catalog.find(record.deadLetterQueue)) !== undefined) {
      const dead = catalog.names(record.deadLetterQueue);
      for (const count of (await this.#subjectCounts(dead.stream, dead.all, record.deadLetterQueue)).values())
        deadLettered += count;
    }
    // Locked messages are not told apart (lockedCount is false): JetStream counts them as pending.
    return { active: total - delayed, inFlight: 0, delayed, deadLettered };
  }

  async #subjectCounts(stream: string, filter: string, queue: string): Promise<Map<string, number>> {
    const { link } = this.#deps;
    const info = await link.call(`counting queue ${queue}`, async () => {
      try {
        return await link.jsm.streams.info(stream, { subjects_filter: filter });
      } catch (error) {
        if (apiCode(error) === 10059) throw new QueueError("QueueNotFound", `queue ${queue} does not exist`);
        throw error;
      }
    });
    return new Map(Object.entries(info.state.subjects ?? {}));
  }

  async purgeQueue(name: string): Promise<number> {
    const { link, catalog } = this.#deps;
    await catalog.require(name);
    const purged = await link.call(`purging queue ${name}`, () =>
      link.jsm.streams.purge(catalog.names(name).stream),
    );
    return purged.purged;
  }

  async deadLetterQueueOf(name: string): Promise<string> {
    validateQueueName(name);
    return deadLetterQueueOfRecord(name, await this.#deps.catalog.find(name));
  }

  /** Moves dead letters back (see the provider's redrive: it receives them). */
  redrive(deadLetterQueue: string, target?: string): Promise<number> {
    return this.#deps.redrive(deadLetterQueue, target);
  }

  /**
   * Stored messages in stream order by direct get, nothing locked or counted; those whose time to
   * live ended are left out. JetStream keeps no delivery count per stored message that a peek
   * could read: a message of a plain queue shows 1 once the work consumer has delivered it (it
   * may have been delivered more often), a session message its count from the session's record.
   */
  async peekMessages(name: string, max: number, fromSequence?: string): Promise<PeekedMessage[]> {
    validatePeek(max, fromSequence);
    const { catalog, link, clock, locks } = this.#deps;
    const record = await catalog.require(name);
    const names = catalog.names(name);
    const now = clock.now();
    const deliveredUpTo = await this.#deliveredUpTo(names.stream, names.workConsumer, name);
    const sessionDeliveries = new Map<string, Readonly<Record<string, number>>>();
    const peeked: PeekedMessage[] = [];
    for (let seq = Number(fromSequence ?? "0"); peeked.length < max; ) {
      const stored = await link.call(`peeking at queue ${name}`, () =>
        link.jsm.direct.getMessage(names.stream, { seq, next_by_subj: names.all }),
      );
      if (stored === null) break;
      seq = stored.seq + 1;
      const meta = readMeta(stored.header, `${name}:${stored.seq}`, stored.time.getTime());
      if (meta.expiresAt !== undefined && meta.expiresAt <= now) continue;
      let deliveries = 0;
      if (stored.subject === names.ready) deliveries = stored.seq <= deliveredUpTo ? 1 : 0;
      else if (record.fifo && meta.sessionId !== undefined && stored.subject !== names.delayed) {
        if (!sessionDeliveries.has(meta.sessionId))
          sessionDeliveries.set(meta.sessionId, (await locks.read(name, meta.sessionId))?.deliveries ?? {});
        deliveries = sessionDeliveries.get(meta.sessionId)?.[stored.seq] ?? 0;
      }
      const fields = messageFields(meta, stored.data, stored.seq, deliveries, meta.enqueuedAt);
      peeked.push(peekedMessage(fields, stored.subject === names.delayed ? "delayed" : "active"));
    }
    return peeked;
  }

  /** The last stream sequence the work consumer has delivered. */
  async #deliveredUpTo(stream: string, consumer: string, queue: string): Promise<number> {
    const { link } = this.#deps;
    const info = await link.call(`peeking at queue ${queue}`, async () => {
      try {
        return await link.jsm.consumers.info(stream, consumer);
      } catch (error) {
        if (apiCode(error) === 10059) throw new QueueError("QueueNotFound", `queue ${queue} does not exist`);
        throw error;
      }
    });
    return info.delivered.stream_seq;
  }
}
