import type { QueueStats } from "../../core/admin.js";
import type { VirtualClock } from "../../core/clock.js";
import type { ReceivedMessage } from "../../core/message.js";
import { MAX_PEEK } from "../../core/peeked-message.js";
import type { QueueClient, SessionClient } from "../../core/queue-client.js";
import type { ReceiptHandle } from "../../core/receipt-handle.js";
import { DEAD_LETTER_ATTRIBUTES } from "../../rules/dead-letters.js";
import { belongsToTopic } from "../../rules/topic-records.js";
import { sameResult, sameValue } from "./outcome.js";
import {
  type DeadLetterMark,
  type ModelDelivery,
  type ModelOptions,
  type ModelSession,
  QueueModel,
} from "./queue-model.js";
import { TopicModel } from "./topic-model.js";

/** A receipt the model and the provider both issued for one delivery. */
export interface ReceiptPair {
  readonly model: string;
  readonly real: ReceiptHandle;
  readonly body: string;
}

/** A session the model and the provider both let a receiver accept. */
export interface SessionPair {
  readonly model: ModelSession;
  readonly real: SessionClient;
  readonly queue: string;
}

/** What a delivery looks like once both sides are reduced to what they must agree on. */
export interface ComparableDelivery {
  readonly body: string;
  readonly sessionId: string | undefined;
  readonly deliveryCount: number;
  readonly lockedUntil: number;
  readonly deadLetter: DeadLetterMark | undefined;
}

/**
 * One run's two sides: the reference model and a provider (two clients of it, sharing queues and
 * the virtual clock), with the receipts both handed out so far. Receipts are never dropped: old
 * ones are what settling twice, late or after a redelivery is tested with.
 */
export class World {
  readonly model: QueueModel;
  /** The topics, whose subscriptions' messages are queues of {@link model}. */
  readonly topics: TopicModel;
  readonly clock: VirtualClock;
  /** The client commands go through. */
  readonly client: QueueClient;
  /** Another client of the same provider, for settling by a receipt's text. */
  readonly second: QueueClient;
  readonly receipts: ReceiptPair[] = [];
  /** Every session accepted so far, closed and lost ones included. */
  readonly sessions: SessionPair[] = [];
  /** The provider's id of each message stored, by body, to check that a repeated deduplication id answers the original. */
  readonly realIds = new Map<string, string>();
  #bodies = 0;

  /** Starts the model at the clock's time. */
  constructor(clock: VirtualClock, client: QueueClient, second: QueueClient, options?: ModelOptions) {
    this.clock = clock;
    this.client = client;
    this.second = second;
    this.model = new QueueModel(clock.now(), options);
    this.topics = new TopicModel(this.model, options);
  }

  /** A body no message of this run had before: bodies are how the two sides' messages are matched. */
  nextBody(): string {
    return `m${++this.#bodies}`;
  }

  /**
   * Remembers the provider's id of each message sent, by body, and checks that a send the model
   * answered with an earlier message (a repeated deduplication id) got that message's id.
   */
  matchIds(what: string, sent: readonly string[], stored: readonly string[], ids: readonly string[]): void {
    sameValue(`${what}: how many ids`, stored.length, ids.length);
    stored.forEach((body, index) => {
      const id = ids[index]!;
      if (body === sent[index]) this.realIds.set(body, id);
      else sameValue(`${what}: the id of the original ${body}`, this.realIds.get(body), id);
    });
  }

  /** The receipt `index` counts back from the newest (recent receipts are the interesting ones); `undefined` when none. */
  receipt(index: number): ReceiptPair | undefined {
    if (this.receipts.length === 0) return undefined;
    return this.receipts[this.receipts.length - 1 - (index % this.receipts.length)];
  }

  /** The session `index` counts back from the newest; `undefined` when none was accepted. */
  session(index: number): SessionPair | undefined {
    if (this.sessions.length === 0) return undefined;
    return this.sessions[this.sessions.length - 1 - (index % this.sessions.length)];
  }

  /**
   * The model's receive as the client makes it: in calls of at most the provider's batch size,
   * until one comes back short. On a FIFO queue that matters: a group a call took is locked for
   * the next calls, so its later messages wait (SQS takes 10 at a time).
   */
  receiveInRuns(queue: string, max: number): ModelDelivery[] {
    const runSize = this.client.capabilities.maxBatchSize;
    const received: ModelDelivery[] = [];
    while (received.length < max) {
      const want = Math.min(max - received.length, runSize);
      const run = this.model.receive(queue, want);
      received.push(...run);
      if (run.length < want) break;
    }
    return received;
  }

  /** The client a settle goes through: the first, or the second by the receipt's text. */
  settler(viaSecond: boolean, pair: ReceiptPair): { client: QueueClient; receipt: ReceiptHandle | string } {
    return viaSecond
      ? { client: this.second, receipt: String(pair.real) }
      : { client: this.client, receipt: pair.real };
  }

  /**
   * Compares the deliveries of one receive and remembers their receipts. From a queue that takes
   * dead letters the order is not the semantics' business (it depends on when each arrived), so
   * those are compared as sets.
   */
  matchDeliveries(queue: string, model: readonly ModelDelivery[], real: readonly ReceivedMessage[]): void {
    const unordered = this.model.orderUnspecified(queue);
    // On a FIFO queue the order within each session is the semantics' business, not across them.
    const bySession = this.model.isFifo(queue);
    const order = (list: ComparableDelivery[]) =>
      unordered
        ? [...list].sort((a, b) => a.body.localeCompare(b.body))
        : bySession
          ? [...list].sort((a, b) => (a.sessionId ?? "").localeCompare(b.sessionId ?? ""))
          : list;
    // A session is a FIFO queue's business: a standard queue need not keep one (SQS does not).
    const ofQueue = (delivery: ComparableDelivery) =>
      bySession ? delivery : { ...delivery, sessionId: undefined };
    sameValue(
      `receive from ${queue}`,
      order(model.map(comparable)).map(ofQueue),
      order(real.map(comparableReal)).map(ofQueue),
    );
    for (const delivery of model) {
      const match = real.find((message) => bodyText(message) === delivery.body)!;
      this.receipts.push({ model: delivery.receipt, real: match.receiptHandle, body: delivery.body });
    }
  }

  /**
   * After every step: each queue (a subscription's too) has the same counts, the same queues
   * exist, and, where the provider can peek, each holds the same messages in the same states. Counts are read first, a
   * source queue before any dead-letter queue, because a provider may apply what time did only
   * when a queue is read (a deleted dead-letter queue comes back when a message needs it; listing
   * queues does not apply time).
   */
  async compareState(): Promise<void> {
    const names = this.model.queueNames();
    const takers = (name: string) => this.model.takesDeadLetters(name);
    for (const name of [...names.filter((name) => !takers(name)), ...names.filter(takers)])
      await this.compareStats(name);
    // listQueues leaves out what belongs to subscriptions (listSubscriptions lists them).
    const listed = names.filter((name) => !belongsToTopic(name));
    sameValue("queues", listed, await this.client.admin.listQueues());
    if (!this.client.capabilities.peek) return;
    // Where locked messages are not counted apart, a peek shows them active too.
    const shown = (contents: string[]) =>
      this.client.capabilities.lockedCount
        ? contents
        : contents.map((entry) => entry.replace(/:inFlight$/, ":active")).sort();
    for (const name of names)
      await sameResult(
        `messages of ${name}`,
        () => shown(this.model.contents(name)),
        async () =>
          (await this.client.admin.peekMessages(name, MAX_PEEK))
            .map((message) => `${bodyText(message)}:${message.state}`)
            .sort(),
      );
  }

  /** Compares one queue's counts on both sides. */
  compareStats(name: string): Promise<void> {
    const counted = (stats: QueueStats) =>
      this.client.capabilities.lockedCount
        ? stats
        : { ...stats, active: stats.active + stats.inFlight, inFlight: 0 };
    return sameResult(
      `stats of ${name}`,
      () => counted(this.model.stats(name)),
      () => this.client.admin.getQueueStats(name),
    );
  }
}

/** The body of a received or peeked message as the text it was sent as. */
export function bodyText(message: Pick<ReceivedMessage, "body">): string {
  return Buffer.from(message.body).toString("utf8");
}

function comparable(delivery: ModelDelivery): ComparableDelivery {
  return {
    body: delivery.body,
    sessionId: delivery.sessionId,
    deliveryCount: delivery.deliveryCount,
    lockedUntil: delivery.lockedUntil,
    deadLetter: delivery.deadLetter,
  };
}

function comparableReal(message: ReceivedMessage): ComparableDelivery {
  const reason = message.attributes[DEAD_LETTER_ATTRIBUTES.reason];
  return {
    body: bodyText(message),
    sessionId: message.sessionId,
    deliveryCount: message.deliveryCount,
    lockedUntil: message.lockedUntil.getTime(),
    deadLetter:
      reason === undefined
        ? undefined
        : {
            reason,
            description: message.attributes[DEAD_LETTER_ATTRIBUTES.description],
            sourceQueue: message.attributes[DEAD_LETTER_ATTRIBUTES.sourceQueue] ?? "",
          },
  };
}
