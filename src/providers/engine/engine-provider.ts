import type {
  PeekedMessage,
  PeekedState,
  QueueAdmin,
  QueueInfo,
  QueueOptions,
  QueueStats,
} from "../../core/admin.js";
import type { Capabilities, ProviderType } from "../../core/capabilities.js";
import { type BatchEntryResult, QueueError } from "../../core/errors.js";
import { Delivery, type MessageFields, type ReceivedMessage } from "../../core/message.js";
import { peekedMessage } from "../../core/peeked-message.js";
import type {
  OperationContext,
  OutgoingMessage,
  QueueProvider,
  SessionProvider,
  TopicProvider,
} from "../../core/provider.js";
import { ReceiptHandle } from "../../core/receipt-handle.js";
import { type QueueEngine, type RunWrite, runNow } from "../../engine/queue-engine.js";
import type { LockReference, MessageRecord } from "../../engine/records.js";
import type { SessionLock } from "../../engine/sessions.js";
import { WriteBatcher } from "../../engine/write-batcher.js";
import { deadLetterQueueOfRecord, queueInfo } from "../../rules/queue-records.js";
import {
  belongsToTopic,
  subscriptionQueueToCreate,
  subscriptionQueueToDelete,
} from "../../rules/topic-records.js";
import { EngineTopicProvider } from "./engine-topic-provider.js";

const NO_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze({});

/** A received message from the engine's record of it, holding a receipt for its lock. */
export function toDelivery(
  providerType: ProviderType,
  queue: string,
  record: MessageRecord,
): ReceivedMessage {
  return new Delivery(
    messageFields(record),
    record.visibleAt,
    // Base 36: decimal number-to-string on the hot path fills V8's old-space number-string cache and forces full GCs.
    new ReceiptHandle(
      providerType,
      queue,
      `${record.seq.toString(36)}.${record.lockToken}`,
      record.visibleAt,
    ),
  );
}

/** What a delivery and a peek show of a stored message. */
function messageFields(record: MessageRecord): MessageFields {
  return {
    messageId: record.messageId,
    body: Buffer.from(record.body),
    attributes: record.attributes === undefined ? NO_ATTRIBUTES : { ...record.attributes },
    sessionId: record.sessionId,
    correlationId: record.correlationId,
    contentType: record.contentType,
    deliveryCount: record.deliveryCount,
    enqueuedAtMs: record.enqueuedAt,
    firstDeliveredAtMs: record.firstDeliveredAt ?? record.enqueuedAt,
    deliveredAtMs: record.deliveredAt ?? record.enqueuedAt,
    sequenceNumber: record.seq,
  };
}

function parseBase36(text: string): number {
  return text.length <= 11 ? Number.parseInt(text, 36) : Number.NaN;
}

function batchedWrites(engine: QueueEngine): RunWrite {
  const batcher = new WriteBatcher((fn) => engine.transaction(fn));
  return (write) => batcher.run(write);
}

/** The engine lock a receipt refers to; `InvalidReceipt` when the receipt was not issued by an engine. */
export function lockOf(receipt: ReceiptHandle): LockReference {
  const dot = receipt.token.indexOf(".");
  const seq = dot > 0 ? parseBase36(receipt.token.slice(0, dot)) : Number.NaN;
  const lockToken = receipt.token.slice(dot + 1);
  if (!Number.isSafeInteger(seq) || seq < 1 || lockToken === "")
    throw new QueueError("InvalidReceipt", "this receipt handle does not refer to a message lock");
  return { queue: receipt.queue, seq, lockToken };
}

/**
 * The {@link QueueProvider} over a {@link QueueEngine}: the memory and SQLite providers are this,
 * with different stores. Engine calls are synchronous; waits are the engine's own.
 */
export class EngineProvider implements QueueProvider {
  readonly providerType: ProviderType;
  readonly capabilities: Capabilities;
  readonly admin: QueueAdmin;
  readonly topics: TopicProvider | undefined;
  readonly engine: QueueEngine;
  /** Engine calls are synchronous and its waits end on time. */
  readonly enforcesTimeouts = true;
  readonly #release: () => void | Promise<void>;
  readonly #write: RunWrite;

  /**
   * `release` runs once, on close (for example to close the store when its last user leaves);
   * `groupCommit` runs writes issued in the same tick in one transaction (worth it where a
   * commit costs I/O).
   */
  constructor(
    engine: QueueEngine,
    providerType: ProviderType,
    capabilities: Capabilities,
    release: () => void | Promise<void>,
    options: { groupCommit?: boolean } = {},
  ) {
    this.engine = engine;
    this.providerType = providerType;
    this.capabilities = capabilities;
    this.admin = new EngineAdmin(engine);
    this.#release = release;
    // Called from async methods, so a synchronous throw still becomes a rejection, and a plain value costs no extra tick.
    this.#write = options.groupCommit ? batchedWrites(engine) : runNow;
    this.topics = capabilities.topics
      ? new EngineTopicProvider(engine, capabilities.maxMessageBytes, this.#write)
      : undefined;
  }

  async sendMessages(
    queue: string,
    messages: readonly OutgoingMessage[],
    _context: OperationContext,
  ): Promise<BatchEntryResult[]> {
    return this.#write(() => this.engine.send(queue, messages));
  }

  async receiveMessages(
    queue: string,
    maxMessages: number,
    waitMs: number,
    context: OperationContext,
  ): Promise<ReceivedMessage[]> {
    // The first try is a write like any other: concurrent sends, receives and completes share its commit.
    return this.engine.receive(queue, maxMessages, (record) => toDelivery(this.providerType, queue, record), {
      waitMs,
      signal: context.signal,
      firstTry: this.#write,
    });
  }

  async completeMessage(receipt: ReceiptHandle): Promise<void> {
    const lock = lockOf(receipt);
    return this.#write(() => this.engine.complete(lock));
  }

  async abandonMessage(receipt: ReceiptHandle, delayMs: number): Promise<void> {
    const lock = lockOf(receipt);
    return this.#write(() => this.engine.abandon(lock, delayMs));
  }

  async deadLetterMessage(
    receipt: ReceiptHandle,
    reason: string,
    description: string | undefined,
  ): Promise<void> {
    const lock = lockOf(receipt);
    return this.#write(() => this.engine.deadLetter(lock, reason, description));
  }

  async renewMessageLock(receipt: ReceiptHandle): Promise<Date> {
    const lock = lockOf(receipt);
    return new Date(await this.#write(() => this.engine.extendLock(lock)));
  }

  async acceptSession(
    queue: string,
    sessionId: string | undefined,
    waitMs: number,
    context: OperationContext,
  ): Promise<SessionProvider> {
    const lock = await this.engine.acceptSession(queue, sessionId, waitMs, context.signal);
    return new EngineSession(this.engine, this.providerType, lock);
  }

  async close(): Promise<void> {
    await this.#release();
  }
}

/** One session locked in the engine. */
class EngineSession implements SessionProvider {
  readonly #engine: QueueEngine;
  readonly #providerType: ProviderType;
  #lock: SessionLock;

  constructor(engine: QueueEngine, providerType: ProviderType, lock: SessionLock) {
    this.#engine = engine;
    this.#providerType = providerType;
    this.#lock = lock;
  }

  get sessionId(): string {
    return this.#lock.sessionId;
  }

  get sessionExpiresAt(): Date {
    return new Date(this.#lock.lockedUntil);
  }

  async receiveMessages(
    maxMessages: number,
    waitMs: number,
    context: OperationContext,
  ): Promise<ReceivedMessage[]> {
    const queue = this.#lock.queue;
    return this.#engine.receiveFromSession(
      this.#lock,
      maxMessages,
      (record) => toDelivery(this.#providerType, queue, record),
      {
        waitMs,
        signal: context.signal,
      },
    );
  }

  async completeMessage(receipt: ReceiptHandle): Promise<void> {
    this.#engine.complete(this.#own(receipt));
  }

  async abandonMessage(receipt: ReceiptHandle): Promise<void> {
    this.#engine.abandon(this.#own(receipt), 0);
  }

  async deadLetterMessage(
    receipt: ReceiptHandle,
    reason: string,
    description: string | undefined,
  ): Promise<void> {
    this.#engine.deadLetter(this.#own(receipt), reason, description);
  }

  async renewSessionLock(): Promise<Date> {
    const lockedUntil = this.#engine.renewSession(this.#lock);
    this.#lock = { ...this.#lock, lockedUntil };
    return new Date(lockedUntil);
  }

  async getSessionState(): Promise<Uint8Array | null> {
    const state = this.#engine.getSessionState(this.#lock);
    return state === null ? null : Uint8Array.prototype.slice.call(state);
  }

  async setSessionState(state: Uint8Array | null): Promise<void> {
    this.#engine.setSessionState(this.#lock, state);
  }

  async closeSession(): Promise<void> {
    this.#engine.closeSession(this.#lock);
  }

  #own(receipt: ReceiptHandle): LockReference {
    if (receipt.queue !== this.#lock.queue)
      throw new QueueError(
        "InvalidReceipt",
        `this receipt belongs to ${receipt.queue}, not to this session's queue`,
      );
    return lockOf(receipt);
  }
}

/** Queue administration straight on the engine. */
class EngineAdmin implements QueueAdmin {
  readonly #engine: QueueEngine;

  constructor(engine: QueueEngine) {
    this.#engine = engine;
  }

  async createQueue(name: string, options?: QueueOptions): Promise<QueueInfo> {
    const refused = subscriptionQueueToCreate(name);
    if (refused !== undefined) throw refused;
    return this.#engine.createQueue(name, options);
  }

  async deleteQueue(name: string): Promise<void> {
    if (belongsToTopic(name) && this.#engine.getQueueRecord(name) !== undefined)
      throw subscriptionQueueToDelete(name);
    this.#engine.deleteQueue(name);
  }

  /** The queues, without those that belong to topics' subscriptions (`listSubscriptions` lists them). */
  async listQueues(prefix?: string): Promise<string[]> {
    const names = this.#engine
      .listQueues()
      .map((queue) => queue.name)
      .filter((name) => !belongsToTopic(name));
    return prefix === undefined ? names : names.filter((name) => name.startsWith(prefix));
  }

  async getQueue(name: string): Promise<QueueInfo | null> {
    const record = this.#engine.getQueueRecord(name);
    return record === undefined ? null : queueInfo(record);
  }

  async getQueueStats(name: string): Promise<QueueStats> {
    return this.#engine.stats(name);
  }

  async purgeQueue(name: string): Promise<number> {
    return this.#engine.purge(name);
  }

  async deadLetterQueueOf(name: string): Promise<string> {
    return deadLetterQueueOfRecord(name, this.#engine.getQueueRecord(name));
  }

  async redrive(deadLetterQueue: string, target?: string): Promise<number> {
    return this.#engine.redrive(deadLetterQueue, { target });
  }

  /** Peeks in sequence order; a message whose time to live ended is gone unless a receiver holds it (it may still complete it). */
  async peekMessages(queue: string, max: number, fromSequence?: string): Promise<PeekedMessage[]> {
    const now = this.#engine.clock.now();
    const peeked: PeekedMessage[] = [];
    // Pages until `max` are shown: messages left out must not make a peek look like the queue's end.
    for (let from = fromSequence === undefined ? 0 : Number(fromSequence); peeked.length < max; ) {
      const want = max - peeked.length;
      const page = this.#engine.peek(queue, from, want);
      for (const record of page) {
        const state = peekedState(record, now);
        if (state === "inFlight" || record.expiresAt === null || record.expiresAt > now)
          peeked.push(peekedMessage(messageFields(record), state));
      }
      if (page.length < want) break;
      from = page[page.length - 1]!.seq + 1;
    }
    return peeked;
  }
}

/** A message's state as a peek shows it: a lock or delay that ended is active already, whether or not the engine has looked since. */
function peekedState(record: MessageRecord, now: number): PeekedState {
  if (record.visibleAt <= now) return "active";
  return record.state === "locked" ? "inFlight" : record.state === "delayed" ? "delayed" : "active";
}
