import type { Msg } from "@nats-io/transport-node";
import type { Clock } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import { Delivery } from "../../core/message.js";
import { ReceiptHandle } from "../../core/receipt-handle.js";
import { DEAD_LETTER_ATTRIBUTES, DEAD_LETTER_REASONS } from "../../rules/dead-letters.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import { removeDelivered, signalDelivery } from "./acks.js";
import type { NatsLink } from "./connection.js";
import type { DelayMover } from "./delay-mover.js";
import type { DeliveryMarks } from "./delivery-marks.js";
import { type MessageMeta, messageFields, readMeta } from "./message-mapping.js";
import { type AckInfo, type Pulls, parseAckSubject } from "./pulls.js";
import type { QueueCatalog } from "./queue-catalog.js";
import { storedMessage } from "./stored-message.js";
import { transfer } from "./transfer.js";
import { Wakeup } from "./wakeups.js";

/** A pull sent and when: its locks run from then. */
export interface PullAhead {
  readonly pulledAt: number;
  readonly pulled: Promise<Msg[]>;
}

/** The kind mark of a receipt token for a message of a plain queue (its ack subject follows). */
export const WORK_RECEIPT = "a";

/** A queue's record, and the catalog's generation it was known to hold at. */
interface Current {
  readonly record: QueueRecord;
  readonly generation: number;
}

/** A message this client received from a work consumer and has not settled. */
interface HeldWork {
  lockedUntil: number;
  readonly record: QueueRecord;
  readonly meta: MessageMeta;
  readonly body: Uint8Array;
  readonly info: AckInfo;
}

/** How long a waiting receive goes without looking, at most (redeliveries and ended delays publish nothing). */
export const LOOK_AGAIN_MS = 100;

/** How many held messages make the next receive forget those whose locks ended long ago. */
const SWEEP_AT = 1_024;

/** What the work queues need from the provider. */
export interface WorkQueueDeps {
  readonly link: NatsLink;
  readonly prefix: string;
  readonly catalog: QueueCatalog;
  readonly pulls: Pulls;
  readonly delays: DelayMover;
  readonly marks: DeliveryMarks;
  readonly clock: Clock;
  readonly providerType: string;
}

/**
 * The end of a lock JetStream started (its ack wait) at or after `startedAt`: a pull or a
 * progress mark is timed from just before it is sent, so the lock the provider enforces never
 * outlasts the server's, and a settle it accepts is never one the server has already given to
 * another receiver.
 */
export function lockEnd(startedAt: number, lockMs: number): number {
  return startedAt + lockMs;
}

/**
 * Receiving and settling the messages of plain (non-FIFO) queues through their shared durable
 * `work` consumer: pull requests on it, one ack subject per delivery, the ack wait as the lock.
 */
export class WorkQueues {
  readonly #deps: WorkQueueDeps;
  readonly #held = new Map<string, HeldWork>();
  /** Ack subjects settled by this client lately, so that a second settle is refused. */
  readonly #settledSubjects = new Set<string>();
  /**
   * How many held messages make a receive sweep: twice what the last sweep kept, so that many
   * held within their locks do not make every receive scan them.
   */
  #sweepAt = SWEEP_AT;

  constructor(deps: WorkQueueDeps) {
    this.#deps = deps;
  }

  /**
   * Receives up to `max` ready messages of `record`, waiting up to `waitMs` for the first. Every
   * look is a no-wait pull; a wait between looks ends at a publish to the queue (a core
   * subscription sees it) or after {@link LOOK_AGAIN_MS}, for redeliveries and delays that end,
   * which publish nothing. A pull left waiting on the server would be worse: NATS 2.9 passes over
   * one whose reply subject lost interest, but counts that as a delivery undone, and the next
   * delivery of a message abandoned meanwhile then shows the count it had before.
   */
  async receive(
    record: QueueRecord,
    max: number,
    waitMs: number,
    signal: AbortSignal,
    { ahead, generation }: { ahead: PullAhead | undefined; generation: number },
  ): Promise<Delivery[]> {
    const { clock, link } = this.#deps;
    const names = this.#deps.catalog.names(record.name);
    const deadline = clock.now() + waitMs;
    const wakeup = waitMs > 0 ? new Wakeup(link, names.ready) : undefined;
    let current: Current = { record, generation };
    try {
      for (let first = ahead; ; first = undefined) {
        const look = first ?? (await this.#look(current.record, max));
        const pulled = await look.pulled;
        current = await this.#current(current, pulled);
        const ready = await this.#accept(current.record, pulled, look.pulledAt);
        if (ready.length > 0 || signal.aborted) return ready;
        // All of them dead-lettered or dropped: look again before waiting.
        if (pulled.length > 0) continue;
        const left = deadline - clock.now();
        if (left <= 0 || wakeup === undefined) return [];
        await wakeup.wait(Math.min(left, LOOK_AGAIN_MS), signal);
        // Ended (the client closing): no look more, whose pull the closing connection may never answer.
        if (signal.aborted) return [];
      }
    } finally {
      wakeup?.close();
    }
  }

  /**
   * The record of the queue as it is now, and the catalog's generation it holds at: `current`
   * itself while the catalog did not change since `generation` (the pull's answer came after any
   * change made before the pull was sent); else read again. A plain queue made again under the
   * pull took its messages from the new stream, and takes them by the new record; one deleted, or
   * made again with sessions, gives `pulled` back and throws {@link StaleRecord}, for the receive
   * to start over.
   */
  async #current(current: Current, pulled: Msg[]): Promise<Current> {
    const { catalog, pulls } = this.#deps;
    const generation = catalog.generation;
    if (generation === current.generation) return current;
    const giveBack = () => {
      for (const message of pulled) pulls.giveBack(message);
    };
    const record = await catalog.find(current.record.name).catch((error: unknown) => {
      giveBack();
      throw error;
    });
    if (record !== undefined && !record.fifo) return { record, generation };
    giveBack();
    throw new StaleRecord();
  }

  /** Moves the delayed messages of `record` that are due, then pulls up to `max`. */
  async #look(record: QueueRecord, max: number): Promise<PullAhead> {
    this.#deps.link.checkUp(`receiving from ${record.name}`);
    await this.#deps.delays.moveDue(record);
    return this.#pull(record.name, max);
  }

  #pull(queue: string, max: number): PullAhead {
    const names = this.#deps.catalog.names(queue);
    return {
      pulledAt: this.#deps.clock.now(),
      pulled: this.#deps.pulls.pull(names.stream, names.workConsumer, max),
    };
  }

  /**
   * The first pull of a receive from `queue` that does not wait, sent with the read of its record
   * (a plain queue is the common case, a FIFO queue's work consumer never holds anything), unless
   * a delay there may have ended (moved first) or the connection is down. Given to {@link receive},
   * or to {@link giveBack} when the queue turns out to be FIFO or missing.
   */
  pullAhead(queue: string, max: number): PullAhead | undefined {
    if (!this.#deps.link.up || this.#deps.delays.mayBeDue(queue)) return undefined;
    return this.#pull(queue, max);
  }

  /** Gives back at once what a pull ahead brought. */
  giveBack(ahead: PullAhead): void {
    void ahead.pulled.then((messages) => {
      for (const message of messages) this.#deps.pulls.giveBack(message);
    });
  }

  /**
   * Deliveries of the messages a pull brought: those whose time to live ended or whose deliveries
   * are used up are dead-lettered (or dropped) here, as any receive would find them.
   */
  async #accept(record: QueueRecord, messages: Msg[], pulledAt: number): Promise<Delivery[]> {
    const out: Delivery[] = [];
    const now = this.#deps.clock.now();
    if (this.#held.size >= this.#sweepAt) this.#sweep(now);
    for (const message of messages) {
      const info = parseAckSubject(message.reply ?? "");
      if (info === undefined) continue;
      const meta = readMeta(message.headers, `${record.name}:${info.streamSequence}`, now);
      const expired = meta.expiresAt !== undefined && meta.expiresAt <= now;
      // Without a dead-letter queue nothing is dropped for its deliveries: it stays until settled.
      const exhausted =
        record.deadLetterQueue !== null &&
        record.maxDeliveryCount !== null &&
        info.deliveryCount > record.maxDeliveryCount;
      if (expired || exhausted) {
        const held: HeldWork = {
          lockedUntil: lockEnd(now, record.lockDurationMs),
          record,
          meta,
          body: message.data,
          info,
        };
        await this.#retire(
          message.reply!,
          held,
          expired ? DEAD_LETTER_REASONS.expired : DEAD_LETTER_REASONS.maxDeliveryCount,
          expired,
        );
        continue;
      }
      const lockedUntil = lockEnd(pulledAt, record.lockDurationMs);
      this.#held.set(message.reply!, { lockedUntil, record, meta, body: message.data, info });
      const fields = messageFields(meta, message.data, info.streamSequence, info.deliveryCount, now);
      const receipt = new ReceiptHandle(
        this.#deps.providerType,
        record.name,
        `${WORK_RECEIPT}${message.reply}`,
        lockedUntil,
      );
      out.push(new Delivery(fields, lockedUntil, receipt));
    }
    return out;
  }

  /** Dead-letters (or, without a dead-letter queue, or for an expiry the queue drops, terminates) a message the provider itself retires. */
  async #retire(ackSubject: string, held: HeldWork, reason: string, expired: boolean): Promise<void> {
    const keep = held.record.deadLetterQueue !== null && (!expired || held.record.deadLetterOnExpiration);
    if (keep) await this.#deadLetter(ackSubject, held, reason, undefined);
    else
      await removeDelivered(
        this.#deps.link,
        ackSubject,
        held.info,
        "term",
        `dropping a message of ${held.record.name}`,
      );
  }

  /** The dead letter stored first (its PubAck awaited), then the original terminated. */
  async #deadLetter(
    ackSubject: string,
    held: HeldWork,
    reason: string,
    description: string | undefined,
  ): Promise<void> {
    const { link, prefix, catalog } = this.#deps;
    const target = await catalog.ensureDeadLetterQueue(held.record);
    if (target === undefined)
      throw new QueueError("Unsupported", `queue ${held.record.name} has no dead-letter queue`);
    const attributes: Record<string, string> = {
      ...held.meta.attributes,
      [DEAD_LETTER_ATTRIBUTES.reason]: reason,
      [DEAD_LETTER_ATTRIBUTES.sourceQueue]: held.record.name,
    };
    if (description !== undefined) attributes[DEAD_LETTER_ATTRIBUTES.description] = description;
    await transfer(link, prefix, held.record, target, held.meta, held.body, attributes);
    await removeDelivered(
      link,
      ackSubject,
      held.info,
      "term",
      `removing a dead-lettered message of ${held.record.name}`,
    );
  }

  /**
   * Completes the message of `receipt` (token without its kind mark); `InvalidReceipt` when its
   * lock is gone. Its delivery is spent first, then the message erased; the erase tells whether
   * it was still stored (purged, or its queue deleted: JetStream would take an ack and say nothing).
   */
  async complete(receipt: ReceiptHandle, ackSubject: string): Promise<void> {
    const held = await this.#holding(receipt, ackSubject);
    const revision = await this.#spend(receipt, ackSubject, held);
    const what = `completing a message of ${receipt.queue}`;
    if (!(await removeDelivered(this.#deps.link, ackSubject, held.info, "ack", what))) {
      this.#held.delete(ackSubject);
      await this.#deps.marks.unspend(receipt.queue, held.info, revision);
      throw notStored(receipt.queue);
    }
    this.#settled(ackSubject);
  }

  /** Gives the message back, to be delivered again after `delayMs` (or dead-lettered when its deliveries are used up). */
  async abandon(receipt: ReceiptHandle, ackSubject: string, delayMs: number): Promise<void> {
    await this.#settle(receipt, ackSubject, async (held) => {
      const max = held.record.maxDeliveryCount;
      if (max !== null && held.info.deliveryCount >= max && held.record.deadLetterQueue !== null)
        return this.#deadLetter(ackSubject, held, DEAD_LETTER_REASONS.maxDeliveryCount, undefined);
      await signalDelivery(
        this.#deps.link,
        ackSubject,
        "nak",
        `abandoning a message of ${receipt.queue}`,
        delayMs,
      );
    });
  }

  /** Moves the message to its queue's dead-letter queue with `reason`. */
  async deadLetter(
    receipt: ReceiptHandle,
    ackSubject: string,
    reason: string,
    description: string | undefined,
  ): Promise<void> {
    const held = await this.#holding(receipt, ackSubject);
    const { record, info } = held;
    await this.#deps.marks.check(receipt.queue, info);
    if (!(await this.#stored(held))) throw notStored(receipt.queue);
    // Refused before the delivery is spent: the message stays held, to be settled otherwise.
    if (record.deadLetterQueue === null)
      throw new QueueError("Unsupported", `queue ${record.name} has no dead-letter queue`);
    await this.#settle(receipt, ackSubject, (held) =>
      this.#deadLetter(ackSubject, held, reason, description),
    );
  }

  /** Extends the lock by the queue's lock duration from now (JetStream's ack wait starts over). */
  async renew(receipt: ReceiptHandle, ackSubject: string): Promise<Date> {
    const held = await this.#holding(receipt, ackSubject);
    await this.#deps.marks.check(receipt.queue, held.info);
    const sentAt = this.#deps.clock.now();
    // Checked first: JetStream never answers progress on a message settled elsewhere (another
    // client completed it by its written-down receipt), so the request would wait out its bound.
    // Still stored, it is still this delivery's.
    if (!(await this.#stored(held))) {
      this.#held.delete(ackSubject);
      throw new QueueError(
        "InvalidReceipt",
        `this message of ${receipt.queue} was settled by another client`,
      );
    }
    await signalDelivery(this.#deps.link, ackSubject, "working", `renewing a lock on ${receipt.queue}`);
    held.lockedUntil = lockEnd(sentAt, held.record.lockDurationMs);
    return new Date(held.lockedUntil);
  }

  /** Whether the message `held` names is still on its stream. */
  async #stored(held: HeldWork): Promise<boolean> {
    const { link } = this.#deps;
    const seq = held.info.streamSequence;
    const stored = await link.call(`reading a message of ${held.record.name}`, () =>
      storedMessage(link.jsm, held.info.stream, seq),
    );
    return stored !== null && stored.seq === seq;
  }

  async #settle(
    receipt: ReceiptHandle,
    ackSubject: string,
    act: (held: HeldWork) => Promise<void>,
  ): Promise<void> {
    const held = await this.#holding(receipt, ackSubject);
    // Purged, or its queue deleted: JetStream would take the nak or the term and say nothing.
    if (!(await this.#stored(held))) {
      this.#held.delete(ackSubject);
      throw notStored(receipt.queue);
    }
    await this.#spend(receipt, ackSubject, held);
    await act(held);
    this.#settled(ackSubject);
  }

  /** Spends the delivery `held` names (see {@link DeliveryMarks.spend}); one spent already is forgotten here too. */
  async #spend(receipt: ReceiptHandle, ackSubject: string, held: HeldWork): Promise<number> {
    try {
      return await this.#deps.marks.spend(receipt.queue, held.info);
    } catch (error) {
      if (QueueError.is(error, "InvalidReceipt")) this.#held.delete(ackSubject);
      throw error;
    }
  }

  /** Forgets a settled message, remembering its ack subject a while so that a second settle is refused. */
  #settled(ackSubject: string): void {
    this.#held.delete(ackSubject);
    this.#settledSubjects.add(ackSubject);
    if (this.#settledSubjects.size <= SWEEP_AT * 4) return;
    // The oldest go a batch at a time: dropping one per settle makes each find the first live
    // entry past all those dropped before.
    let drop = SWEEP_AT;
    for (const subject of this.#settledSubjects) {
      this.#settledSubjects.delete(subject);
      if (--drop === 0) break;
    }
  }

  /**
   * The held message of a receipt whose lock still holds: this client's own, or (for a receipt
   * written down by another client) the stored message it names, within the lock the receipt tells.
   */
  async #holding(receipt: ReceiptHandle, ackSubject: string): Promise<HeldWork> {
    const now = this.#deps.clock.now();
    const own = this.#held.get(ackSubject);
    if (own !== undefined) {
      if (now < own.lockedUntil) return own;
      this.#held.delete(ackSubject);
      throw lockEnded(receipt.queue);
    }
    if (this.#settledSubjects.has(ackSubject))
      throw new QueueError("InvalidReceipt", `this message of ${receipt.queue} was settled already`);
    const info = parseAckSubject(ackSubject);
    const { catalog, link } = this.#deps;
    const record = await catalog.find(receipt.queue);
    if (info === undefined || record === undefined || info.stream !== catalog.names(receipt.queue).stream)
      throw new QueueError("InvalidReceipt", `this receipt names no message of ${receipt.queue}`);
    if (receipt.isExpired(now)) throw lockEnded(receipt.queue);
    const stored = await link.call(`reading a message of ${receipt.queue}`, () =>
      storedMessage(link.jsm, info.stream, info.streamSequence),
    );
    if (stored === null || stored.seq !== info.streamSequence)
      throw new QueueError("InvalidReceipt", `the message of this receipt is no longer on ${receipt.queue}`);
    const meta = readMeta(stored.header, `${record.name}:${stored.seq}`, stored.time.getTime());
    return { lockedUntil: receipt.expiresAtMs, record, meta, body: stored.data, info };
  }

  #sweep(now: number): void {
    for (const [subject, held] of this.#held) if (held.lockedUntil + 60_000 < now) this.#held.delete(subject);
    this.#sweepAt = Math.max(SWEEP_AT, this.#held.size * 2);
  }

  /** Forgets every held message (the client closed). */
  clear(): void {
    this.#held.clear();
  }
}

/** Thrown by a receive whose queue's record changed under it: the caller reads it again and starts over. */
export class StaleRecord extends Error {}

/** The error of a settle of a message no longer stored. */
function notStored(queue: string): QueueError {
  return new QueueError("InvalidReceipt", `this message of ${queue} is no longer stored`);
}

/** The error of a settle after the lock ended. */
function lockEnded(queue: string): QueueError {
  return new QueueError(
    "InvalidReceipt",
    `the lock on this message of ${queue} has ended; it may be delivered again`,
  );
}
