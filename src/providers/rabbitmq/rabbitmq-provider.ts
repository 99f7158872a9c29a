import type { Channel, Message } from "amqplib";
import type { QueueAdmin } from "../../core/admin.js";
import { noQueueToAcceptFrom } from "../../core/await-queue.js";
import type { Capabilities } from "../../core/capabilities.js";
import { type Clock, sleep, systemClock } from "../../core/clock.js";
import type { ProviderConfig } from "../../core/config.js";
import { type BatchEntryResult, QueueError } from "../../core/errors.js";
import { Delivery, type ReceivedMessage } from "../../core/message.js";
import type {
  OperationContext,
  OutgoingMessage,
  ProviderTelemetry,
  QueueProvider,
  SessionProvider,
} from "../../core/provider.js";
import { ReceiptHandle } from "../../core/receipt-handle.js";
import { DEFAULT_OPERATION_TIMEOUT_MS } from "../../core/standard-queue-client.js";
import { serverOf } from "../../core/telemetry/server-address.js";
import { validateCount } from "../../core/validation.js";
import { DEAD_LETTER_ATTRIBUTES, DEAD_LETTER_REASONS } from "../../rules/dead-letters.js";
import { maxMessageBytesOf } from "../../rules/limits.js";
import { newMessageId } from "../../rules/message-ids.js";
import { type QueueDefaults, resolveQueueDefaults } from "../../rules/queue-defaults.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import { resultsOrFailure } from "./batch-results.js";
import { Catalog, type CatalogEntry } from "./catalog.js";
import type { RabbitMqProviderConfig } from "./config.js";
import { isNotFound, type Publisher, RabbitConnection, replyCode, Unroutable } from "./connection.js";
import { declareHolding, declareQueue, takeSessionLock } from "./declarations.js";
import { type Held, HeldMessages } from "./held-messages.js";
import {
  copyParts,
  copyWithDeliveries,
  deliveriesBefore,
  expiresAtOf,
  HEADERS,
  messageFields,
  newMessageParts,
  receivedAttributes,
  subscriptionExpiry,
} from "./message-mapping.js";
import { BrokerNames } from "./names.js";
import { PublishCounts } from "./publish-counts.js";
import { RabbitMqAdmin } from "./rabbitmq-admin.js";
import { RabbitMqTopics } from "./rabbitmq-topics.js";
import { Receiver } from "./receiver.js";
import { RemoteSettle, type SettleRequest } from "./remote-settle.js";
import { awaitReady, type Returned } from "./returns.js";
import { RABBITMQ_FILTERS } from "./routing-headers.js";
import { RabbitSession, SESSION_POLL_MS, type SessionDeps, type SessionHandOut } from "./sessions.js";
import { SettleBarriers } from "./settle-barrier.js";
import { TopicPublishing } from "./topic-publishing.js";

/** The longest delay: a holding queue's `x-message-ttl` is a 32-bit count of milliseconds. */
export const RABBITMQ_MAX_DELAY_MS = 2_147_483_647;

/** The default basic.qos of each queue's consumer. */
export const DEFAULT_PREFETCH = 100;

/** The capabilities of the rabbitmq provider, for a given largest message. */
export function rabbitMqCapabilities(maxMessageBytes: number): Capabilities {
  return Object.freeze({
    // Sessions are the provider's own on queues, locks and state held by the broker across processes.
    sessions: "native",
    batching: true,
    maxBatchSize: 100,
    maxMessageBytes,
    deadLetter: "native",
    delayedDelivery: true,
    maxDelayMs: RABBITMQ_MAX_DELAY_MS,
    sessionState: true,
    lockRenewal: true,
    ordering: "best-effort",
    timeToLive: true,
    redrive: true,
    lockedCount: false,
    peek: false,
    // A topic is a headers exchange: the broker evaluates correlation filters, as bindings.
    topics: true,
    filters: RABBITMQ_FILTERS,
    subscriptionRedrive: true,
    // Exchanges and queues are apart in AMQP: a topic's exchange and a queue may share a name.
    entityNames: "apart",
  });
}

/** Options of the rabbitmq provider beyond its config. */
export interface RabbitMqProviderOptions {
  readonly createQueues: boolean;
}

/** Builds the rabbitmq provider: options checked, nothing connected yet. */
export async function createRabbitMqProvider(
  config: ProviderConfig,
  options: RabbitMqProviderOptions,
): Promise<RabbitMqProvider> {
  return new RabbitMqProvider(config as RabbitMqProviderConfig, options);
}

/** Checks what the broker cannot honour; resolves the queue defaults. */
function checkConfig(config: RabbitMqProviderConfig): QueueDefaults {
  if (typeof config.url !== "string" || !/^amqps?:\/\//i.test(config.url))
    throw new QueueError("Configuration", "rabbitmq needs url: amqp://user:password@host:5672/vhost");
  if (config.queueType !== undefined && config.queueType !== "quorum")
    throw new QueueError(
      "Configuration",
      `queueType ${JSON.stringify(config.queueType)} is not supported: only quorum queues count deliveries (x-delivery-count), which locks, maxDeliveryCount and dead letters need`,
    );
  if (config.deduplicationWindowMs !== undefined && config.deduplicationWindowMs !== 0)
    throw new QueueError(
      "Configuration",
      "deduplicationWindowMs cannot be honoured: RabbitMQ has no message deduplication (set it to 0 or leave it out)",
    );
  if (
    config.queuePrefix !== undefined &&
    (typeof config.queuePrefix !== "string" || config.queuePrefix.includes("~"))
  )
    throw new QueueError("Configuration", "queuePrefix must be a string without '~'");
  try {
    return resolveQueueDefaults({ ...config, deduplicationWindowMs: 0 });
  } catch (error) {
    throw new QueueError("Configuration", (error as Error).message, { cause: error });
  }
}

/**
 * The {@link QueueProvider} for RabbitMQ 3.10+ with no plugin, over AMQP 0.9.1 (amqplib): quorum
 * queues count deliveries and dead-letter at least once; delays are holding queues whose TTL
 * dead-letters back; locks are the provider's own, on unacknowledged deliveries; sessions are a
 * queue each with an exclusive consumer as the lock; the catalog of queues is a stream.
 */
export class RabbitMqProvider implements QueueProvider {
  readonly providerType = "rabbitmq";
  readonly capabilities: Capabilities;
  readonly telemetry: ProviderTelemetry;
  readonly admin: QueueAdmin;
  readonly topics: RabbitMqTopics;
  readonly #counts: PublishCounts;
  readonly #admin: RabbitMqAdmin;
  readonly #connection: RabbitConnection;
  readonly #names: BrokerNames;
  readonly #catalog: Catalog;
  readonly #clock: Clock;
  readonly #defaults: QueueDefaults;
  readonly #prefetch: number;
  readonly #createQueues: boolean;
  readonly #held: HeldMessages;
  readonly #remote: RemoteSettle;
  readonly #barriers = new SettleBarriers();
  /** Borrowed sessions' messages settled by another client's receipt text, by receipt id: their receivers are not done with them yet. */
  readonly #settledForAnother = new Map<string, () => Promise<void>>();
  readonly #receivers = new Map<string, Receiver>();
  readonly #sessions = new Set<RabbitSession>();
  /** The lock queues of the sessions this client holds or is taking. */
  readonly #locks = new Set<string>();
  readonly #sessionDeps: SessionDeps;
  /** Broker queues this client declared already (sessions' and holding queues). */
  readonly #declared = new Map<string, Promise<void>>();
  readonly #closing = new AbortController();

  constructor(config: RabbitMqProviderConfig, options: RabbitMqProviderOptions) {
    this.#defaults = checkConfig(config);
    this.telemetry = { system: "rabbitmq", ...serverOf(config.url) };
    this.capabilities = rabbitMqCapabilities(maxMessageBytesOf(config));
    this.#prefetch = validateCount("prefetch", config.prefetch ?? DEFAULT_PREFETCH, 1, 65_535);
    this.#clock = config.clock ?? systemClock;
    this.#createQueues = options.createQueues;
    this.#names = new BrokerNames(config.queuePrefix ?? "");
    this.#connection = new RabbitConnection(config.url, DEFAULT_OPERATION_TIMEOUT_MS);
    this.#catalog = new Catalog(this.#connection, this.#names.catalog);
    this.#held = new HeldMessages(this.#clock);
    this.#remote = new RemoteSettle(this.#connection, (request) => this.#settleHere(request, true));
    this.#connection.onLost(() => {
      // The broker gave back every delivery of the lost connection, and the declarations may be gone.
      this.#held.clear();
      this.#declared.clear();
      this.#settledForAnother.clear();
    });
    this.#sessionDeps = {
      connection: this.#connection,
      names: this.#names,
      clock: this.#clock,
      handOut: (queue, record, brokerQueue, channel, message, session) =>
        this.#handOut(queue, record, brokerQueue, channel, message, session),
      extend: (id, until) => this.#held.extend(id, until),
      complete: (receipt, context) => this.completeMessage(receipt, context),
      abandon: (receipt, delayMs, context) => this.abandonMessage(receipt, delayMs, context),
      deadLetter: (receipt, reason, description, context) =>
        this.deadLetterMessage(receipt, reason, description, context),
      take: (id) => this.#held.take(id),
      deadLetterSpent: (record, message) =>
        this.#publishDeadLetter(record, message, DEAD_LETTER_REASONS.maxDeliveryCount, undefined),
    };
    this.#admin = new RabbitMqAdmin({
      connection: this.#connection,
      catalog: this.#catalog,
      names: this.#names,
      defaults: this.#defaults,
      clock: this.#clock,
      held: this.#held,
      buffered: (brokerQueue) =>
        (this.#receivers.get(brokerQueue)?.buffered ?? 0) +
        [...this.#sessions].reduce((sum, session) => sum + session.keptOf(brokerQueue), 0),
      letGo: async (brokerQueue) => this.#receivers.get(brokerQueue)?.letGo(),
      givenBack: async (brokerQueue) => this.#receivers.get(brokerQueue)?.givenBack(),
      dropKept: (brokerQueue) =>
        [...this.#sessions].reduce((sum, session) => sum + session.dropKept(brokerQueue), 0),
      forget: (queue, brokerQueues) => this.#forget(queue, brokerQueues),
      target: (entry, sessionId) => this.#target(entry, sessionId),
      lockSession: (entry, sessionId) => this.#lock(entry, sessionId, false),
    });
    this.admin = this.#admin;
    const counts = new PublishCounts(this.#catalog, this.#clock);
    this.#counts = counts;
    const publishing = new TopicPublishing({
      connection: this.#connection,
      catalog: this.#catalog,
      names: this.#names,
      clock: this.#clock,
      createQueues: this.#createQueues,
      counts,
      createTopic: (name) => this.topics.createTopic(name),
      createQueue: (name) => this.#admin.createQueue(name),
      sessionQueue: (entry, sessionId) => this.#target(entry, sessionId),
    });
    this.topics = new RabbitMqTopics({
      connection: this.#connection,
      catalog: this.#catalog,
      names: this.#names,
      clock: this.#clock,
      admin: this.#admin,
      maxMessageBytes: this.capabilities.maxMessageBytes,
      publishing,
      counts,
    });
  }

  async sendMessages(
    queue: string,
    messages: readonly OutgoingMessage[],
    _context: OperationContext,
  ): Promise<BatchEntryResult[]> {
    const entry = await this.#entryForSend(queue);
    const publisher = await this.#connection.publisher();
    // New sessions are noted in the catalog in the order their first messages come, which is the
    // order accept-next offers them in.
    if (entry.record.fifo)
      for (const message of messages)
        if (message.sessionId !== undefined)
          await this.#target(entry, message.sessionId).catch(() => undefined);
    return resultsOrFailure(
      await Promise.all(messages.map((message) => this.#sendOne(entry, message, publisher))),
    );
  }

  async #sendOne(
    entry: CatalogEntry,
    message: OutgoingMessage,
    publisher: Publisher,
  ): Promise<BatchEntryResult> {
    const { record } = entry;
    try {
      if (record.fifo && message.sessionId === undefined)
        throw new QueueError(
          "Validation",
          `queue ${record.name} is a FIFO queue: every message needs a sessionId`,
        );
      const target = await this.#target(entry, message.sessionId);
      const delayMs = message.delayMs ?? record.defaultDelayMs;
      const timeToLiveMs = message.timeToLiveMs ?? record.defaultTimeToLiveMs;
      // The broker expires a message where it waits; a delayed one is judged when received, as its
      // expiration would start counting again in the holding queue.
      const brokerExpiry =
        delayMs === 0 && (record.deadLetterOnExpiration || record.deadLetterQueue === null);
      const messageId = message.messageId ?? newMessageId();
      const parts = newMessageParts(message, messageId, this.#clock.now(), timeToLiveMs, brokerExpiry);
      const destination = delayMs > 0 ? await this.#holding(record.name, target, delayMs) : target;
      await publisher.publish(destination, parts.content, parts.options);
      return { ok: true, messageId };
    } catch (error) {
      return { ok: false, error: this.#notFound(record.name, error) };
    }
  }

  /** The broker queue a message of `entry`'s queue goes to: its own, or its session's (declared on first use). */
  async #target(entry: CatalogEntry, sessionId: string | undefined): Promise<string> {
    const { record } = entry;
    if (!record.fifo || sessionId === undefined) return this.#names.queue(record.name);
    await this.#declareSession(entry.record, sessionId);
    await this.#catalog.addSession(record.name, sessionId, true);
    return this.#names.session(record.name, sessionId);
  }

  /**
   * Declares a session's queue and notes the session in the catalog, once per client. Its dead
   * letters go to the same session of a FIFO dead-letter queue, declared first, so that they stay
   * in order and a receive of the dead-letter queue finds them as a session.
   */
  #declareSession(record: QueueRecord, sessionId: string): Promise<void> {
    const brokerQueue = this.#names.session(record.name, sessionId);
    return this.#once(brokerQueue, async () => {
      const deadLetterTarget = await this.#deadLetterTarget(record, sessionId);
      await this.#connection.withChannel((channel) =>
        declareQueue(channel, brokerQueue, record, this.#names, deadLetterTarget),
      );
      await this.#catalog.addSession(record.name, sessionId, false);
    });
  }

  /** The broker queue a message of `record` with `sessionId` is dead-lettered into (its session's, on a FIFO dead-letter queue). */
  async #deadLetterTarget(record: QueueRecord, sessionId: string | undefined): Promise<string | undefined> {
    if (record.deadLetterQueue === null) return undefined;
    const deadLetters = await this.#catalog.known(record.deadLetterQueue);
    if (deadLetters === undefined || !deadLetters.record.fifo)
      return this.#names.queue(record.deadLetterQueue);
    return this.#target(deadLetters, sessionId ?? record.name);
  }

  /** The holding queue for `target` and `delayMs`, declared and noted in the catalog once per client. */
  async #holding(queue: string, target: string, delayMs: number): Promise<string> {
    const holding = this.#names.holding(target, delayMs);
    await this.#once(holding, async () => {
      await this.#connection.withChannel((channel) => declareHolding(channel, holding, target, delayMs));
      await this.#catalog.addHolding(queue, holding);
    });
    return holding;
  }

  #once(brokerQueue: string, declare: () => Promise<void>): Promise<void> {
    let declared = this.#declared.get(brokerQueue);
    if (declared === undefined) {
      declared = declare().catch((error: unknown) => {
        this.#declared.delete(brokerQueue);
        throw this.#connection.failure(error, `declare ${brokerQueue}`);
      });
      this.#declared.set(brokerQueue, declared);
    }
    return declared;
  }

  /** A failure as the caller sees it: a queue found missing is `QueueNotFound`, and forgotten. */
  #notFound(queue: string, error: unknown): QueueError {
    if (error instanceof Unroutable || isNotFound(error) || QueueError.is(error, "QueueNotFound")) {
      this.#declared.clear();
      return new QueueError("QueueNotFound", `queue ${queue} does not exist`, { cause: error });
    }
    return this.#connection.failure(error, `send to ${queue}`);
  }

  async receiveMessages(
    queue: string,
    maxMessages: number,
    waitMs: number,
    context: OperationContext,
  ): Promise<ReceivedMessage[]> {
    const deadline = this.#clock.now() + waitMs;
    const entry = await this.#entryForRead(queue, deadline, context.signal);
    if (entry === undefined) return [];
    if (entry.record.fifo) return this.#receiveFromSession(entry, maxMessages, deadline, context);
    const brokerQueue = this.#names.queue(queue);
    for (;;) {
      const receiver = this.#receiver(brokerQueue);
      let taken: { channel: Channel; messages: Message[] };
      try {
        taken = await receiver.receive(maxMessages, deadline, context.signal);
      } catch (error) {
        if (this.#closing.signal.aborted) return [];
        throw this.#notFound(queue, error);
      }
      if (receiver.deleted) {
        this.#receivers.delete(brokerQueue);
        if ((await this.#catalog.get(queue)) === undefined)
          throw new QueueError("QueueNotFound", `queue ${queue} does not exist`);
      }
      const received: ReceivedMessage[] = [];
      for (const message of taken.messages) {
        const out = await this.#handOut(queue, entry.record, brokerQueue, taken.channel, message);
        if (out !== undefined) received.push(out.message);
      }
      if (received.length > 0 || this.#clock.now() >= deadline || context.signal.aborted) return received;
    }
  }

  /** A plain receive of a FIFO queue: the messages of the next free session, held as a session until each is settled. */
  async #receiveFromSession(
    entry: CatalogEntry,
    maxMessages: number,
    deadline: number,
    context: OperationContext,
  ): Promise<ReceivedMessage[]> {
    for (;;) {
      const session = await this.#acceptNext(entry.record.name, deadline, context.signal, true);
      if (session === undefined) return [];
      const received = await session.receiveMessages(maxMessages, 0, context);
      if (received.length > 0) return received;
      await session.release();
      if (this.#clock.now() >= deadline || context.signal.aborted) return [];
    }
  }

  #receiver(brokerQueue: string): Receiver {
    let receiver = this.#receivers.get(brokerQueue);
    if (receiver === undefined) {
      receiver = new Receiver(
        brokerQueue,
        this.#connection,
        this.#clock,
        this.#prefetch,
        (channel) => this.#held.dropChannel(channel),
        (channel, messages) => this.#giveBackUnseen(brokerQueue, channel, messages),
      );
      this.#receivers.set(brokerQueue, receiver);
    }
    return receiver;
  }

  /**
   * Gives back deliveries a consumer buffered and no receive took. A nack would count a delivery
   * the application never saw (a quorum queue counts every return), so each goes back as a copy
   * (confirmed) carrying the deliveries it really had, and the delivery is then acknowledged.
   */
  async #giveBackUnseen(brokerQueue: string, channel: Channel, messages: Message[]): Promise<void> {
    const publisher = await this.#connection.publisher();
    for (const message of messages) {
      const parts = copyWithDeliveries(message, deliveriesBefore(message, brokerQueue), brokerQueue);
      try {
        await publisher.publish(brokerQueue, parts.content, parts.options);
        channel.ack(message);
      } catch {
        channel.nack(message, false, true);
      }
    }
  }

  /**
   * Hands a delivery out under a lock (a session's, for a message of a session), or, when its time
   * to live ended or it was delivered more often than its queue allows, dead-letters (or drops) it
   * instead and hands nothing out.
   */
  async #handOut(
    queue: string,
    record: QueueRecord,
    brokerQueue: string,
    channel: Channel,
    message: Message,
    session?: SessionHandOut,
  ): Promise<{ message: ReceivedMessage; id: string } | undefined> {
    const now = this.#clock.now();
    const deliveryCount = (session?.deliveries ?? deliveriesBefore(message, brokerQueue)) + 1;
    const attributes = receivedAttributes(message, this.#names);
    // A dead letter is kept whatever its time to live was.
    const expiresAt =
      attributes[DEAD_LETTER_ATTRIBUTES.reason] === undefined
        ? (expiresAtOf(message) ?? subscriptionExpiry(queue, record, message))
        : undefined;
    const expired = expiresAt !== undefined && expiresAt <= now;
    const overLimit =
      record.maxDeliveryCount !== null &&
      record.deadLetterQueue !== null &&
      deliveryCount > record.maxDeliveryCount;
    if (expired || overLimit) {
      const reason = expired ? DEAD_LETTER_REASONS.expired : DEAD_LETTER_REASONS.maxDeliveryCount;
      if (record.deadLetterQueue !== null && (!expired || record.deadLetterOnExpiration))
        await this.#publishDeadLetter(record, message, reason, undefined);
      channel.ack(message);
      return undefined;
    }
    const lockedUntil = session?.lockedUntil ?? now + record.lockDurationMs;
    const id = this.#held.hold({
      queue,
      brokerQueue,
      record,
      channel,
      message,
      deliveryCount,
      lockedUntil,
      released: session?.released,
      keep: session?.keep,
    });
    const address = await this.#remote.address();
    const receipt = new ReceiptHandle(this.providerType, queue, `${id}@${address}`, lockedUntil);
    const fields = messageFields(
      message,
      attributes,
      deliveryCount,
      now,
      this.#names.sessionOf(queue, brokerQueue),
    );
    return { message: new Delivery(fields, lockedUntil, receipt), id };
  }

  /** Publishes (confirmed) a copy of `message` to `record`'s dead-letter queue with the reason attributes. */
  async #publishDeadLetter(
    record: QueueRecord,
    message: Message,
    reason: string,
    description: string | undefined,
  ): Promise<void> {
    const deadLetterQueue = record.deadLetterQueue;
    if (deadLetterQueue === null)
      throw new QueueError("Unsupported", `queue ${record.name} has no dead-letter queue`);
    const parts = copyParts(message, (headers, attributes) => {
      delete headers[HEADERS.deliveries];
      delete headers[HEADERS.expires];
      attributes[DEAD_LETTER_ATTRIBUTES.reason] = reason;
      if (description !== undefined) attributes[DEAD_LETTER_ATTRIBUTES.description] = description;
      else delete attributes[DEAD_LETTER_ATTRIBUTES.description];
      attributes[DEAD_LETTER_ATTRIBUTES.sourceQueue] = record.name;
    });
    const publisher = await this.#connection.publisher();
    const session = message.properties.headers?.[HEADERS.session];
    const sessionId = typeof session === "string" ? session : undefined;
    try {
      const brokerQueue =
        (await this.#deadLetterTarget(record, sessionId)) ?? this.#names.queue(deadLetterQueue);
      await publisher.publish(brokerQueue, parts.content, parts.options);
    } catch (error) {
      if (!(error instanceof Unroutable)) throw error;
      // The dead-letter queue was deleted: it is made again when a message needs it.
      this.#declared.clear();
      await this.#admin.createDeadLetterQueue(deadLetterQueue, record);
      const brokerQueue =
        (await this.#deadLetterTarget(record, sessionId)) ?? this.#names.queue(deadLetterQueue);
      await publisher.publish(brokerQueue, parts.content, parts.options);
    }
  }

  completeMessage(receipt: ReceiptHandle, context: OperationContext): Promise<void> {
    return this.#settle(receipt, { op: "complete", id: "" }, context).then(() => undefined);
  }

  abandonMessage(receipt: ReceiptHandle, delayMs: number, context: OperationContext): Promise<void> {
    return this.#settle(receipt, { op: "abandon", id: "", delayMs }, context).then(() => undefined);
  }

  deadLetterMessage(
    receipt: ReceiptHandle,
    reason: string,
    description: string | undefined,
    context: OperationContext,
  ): Promise<void> {
    const request: SettleRequest =
      description === undefined
        ? { op: "deadLetter", id: "", reason }
        : { op: "deadLetter", id: "", reason, description };
    return this.#settle(receipt, request, context).then(() => undefined);
  }

  async renewMessageLock(receipt: ReceiptHandle, context: OperationContext): Promise<Date> {
    const expiresAtMs = await this.#settle(receipt, { op: "renew", id: "" }, context);
    return new Date(expiresAtMs ?? this.#clock.now());
  }

  /** Settles here when this client holds the delivery, else asks the client that does. */
  async #settle(
    receipt: ReceiptHandle,
    request: SettleRequest,
    context: OperationContext,
  ): Promise<number | undefined> {
    const at = receipt.token.indexOf("@");
    if (at <= 0) throw new QueueError("InvalidReceipt", "this is not a receipt of the rabbitmq provider");
    const id = receipt.token.slice(0, at);
    const address = receipt.token.slice(at + 1);
    const own = await this.#remote.address();
    if (address === own) return this.#settleHere({ ...request, id }, false);
    return this.#remote.ask(address, { ...request, id }, context.timeoutMs);
  }

  /** Settles a delivery this client holds; resolves the new expiry of a renewal. */
  async #settleHere(request: SettleRequest, forAnother: boolean): Promise<number | undefined> {
    // The receiver finds its receipt spent: it is done with it, and its borrowed session may end
    // (and has, once this resolves).
    const lockGone = async () => {
      const released = forAnother ? undefined : this.#settledForAnother.get(request.id);
      if (released !== undefined) {
        this.#settledForAnother.delete(request.id);
        await released();
      }
      return new QueueError(
        "InvalidReceipt",
        "the lock of this receipt is gone: settled already, or its lock ended",
      );
    };
    if (request.op === "renew") {
      const held = this.#held.get(request.id);
      if (held === undefined) throw await lockGone();
      // A session's message is locked with its session: renewSessionLock renews it.
      if (held.released !== undefined)
        throw new QueueError(
          "Unsupported",
          "a session's message is locked with its session: renew the session's lock",
        );
      const until = this.#clock.now() + held.record.lockDurationMs;
      if (!this.#held.extend(request.id, until)) throw await lockGone();
      return until;
    }
    const peek = this.#held.get(request.id);
    if (peek === undefined) throw await lockGone();
    if (request.op === "deadLetter" && peek.record.deadLetterQueue === null)
      throw new QueueError("Unsupported", `queue ${peek.queue} has no dead-letter queue`);
    const held = this.#held.take(request.id);
    if (held === undefined) throw await lockGone();
    try {
      if (request.op === "complete") held.channel.ack(held.message);
      else if (request.op === "deadLetter") {
        await this.#publishDeadLetter(held.record, held.message, request.reason, request.description);
        held.channel.ack(held.message);
      } else if (request.delayMs > 0) await this.#abandonLater(held, request.delayMs);
      else return await this.#abandonNow(held);
      await this.#barriers.applied(held.channel, held.brokerQueue);
    } catch (error) {
      if (QueueError.is(error)) throw error;
      if (isNotFound(error))
        throw new QueueError("InvalidReceipt", `queue ${held.queue} was deleted, and its messages with it`, {
          cause: error,
        });
      if (replyCode(error) === undefined && /closed/i.test(String(error)))
        throw new QueueError(
          "InvalidReceipt",
          "the channel of this delivery closed: the broker gave it back",
          {
            cause: error,
          },
        );
      throw this.#connection.failure(error, `settle a message of ${held.queue}`);
    } finally {
      // A borrowed session ends once its receiver is done with each of its receipts: a settle by
      // another client's receipt text waits for the receiver to find its own receipt spent.
      if (!forAnother) await held.released?.();
      else if (held.released !== undefined) this.#settledForAnother.set(request.id, held.released);
    }
    return undefined;
  }

  /**
   * An abandon: nack with requeue, resolved once the queue counts the message back (or, when the
   * return dead-letters it, the dead-letter queue counts it), or this client's consumer got it
   * back, or another client's consumer may have taken it: see {@link awaitReady}.
   */
  async #abandonNow(held: Held): Promise<undefined> {
    if (held.keep !== undefined) return this.#abandonInSession(held, held.keep);
    const { channel, record } = held;
    // The return that uses the last delivery makes the broker dead-letter it: its count is watched there.
    const deadLetters =
      record.deadLetterQueue !== null &&
      record.maxDeliveryCount !== null &&
      held.deliveryCount >= record.maxDeliveryCount;
    const session = held.message.properties.headers?.[HEADERS.session];
    const watched = deadLetters
      ? ((await this.#deadLetterTarget(record, typeof session === "string" ? session : undefined)) ??
        held.brokerQueue)
      : held.brokerQueue;
    // A message given back may go to this client's own consumer: it is back once in its buffer.
    const receiver = this.#receivers.get(held.brokerQueue);
    const ours = receiver?.consuming === true && watched === held.brokerQueue ? receiver : undefined;
    const before = await channel.checkQueue(watched);
    const watch = ours?.watchReturn(
      held.message.properties.messageId,
      Number(held.message.properties.headers?.["x-delivery-count"] ?? 0),
    );
    try {
      channel.nack(held.message, false, true);
      // Another client's consumer may have taken it.
      if (before.consumerCount > this.#consumersOfOurs(watched, held)) return undefined;
      // A consumer of this client with room to take it gets it: until then it may show as ready
      // and be on its way to the consumer, counted nowhere.
      const room =
        ours !== undefined &&
        this.#held.countOf(new Set([held.brokerQueue])) + ours.buffered < this.#prefetch;
      const ready = room ? Number.POSITIVE_INFINITY : before.messageCount + 1;
      await awaitReady(channel, watched, ready, () => watch?.returned === true);
      return undefined;
    } finally {
      watch?.stop();
    }
  }

  /**
   * What a quorum queue counts as consumers of `brokerQueue` that are this client's: its consumer,
   * and each delivery it holds that basic.get took (`abandoned` among them until it is given back).
   */
  #consumersOfOurs(brokerQueue: string, abandoned: Held): number {
    const taken = (held: Held) => held.brokerQueue === brokerQueue && !("consumerTag" in held.message.fields);
    return (
      (this.#receivers.get(brokerQueue)?.consuming === true ? 1 : 0) +
      this.#held.of(new Set([brokerQueue])).filter(taken).length +
      (taken(abandoned) ? 1 : 0)
    );
  }

  /**
   * An abandon of a session's message: the message stays on the session's channel and the session
   * hands it out again before anything else, so the session's order holds (a quorum queue may put
   * a nacked message behind the others); when the session is let go it goes back first. The
   * abandon that uses the last delivery the queue allows dead-letters instead.
   */
  async #abandonInSession(held: Held, keep: (returned: Returned) => void): Promise<undefined> {
    if (await this.#deadLetteredAsLast(held)) await this.#barriers.applied(held.channel, held.brokerQueue);
    else keep({ message: held.message, deliveries: held.deliveryCount });
    return undefined;
  }

  /** Dead-letters `held` when this delivery was the last its queue allows, as the broker would on a return; true when it did. */
  async #deadLetteredAsLast(held: Held): Promise<boolean> {
    const { record } = held;
    if (
      record.maxDeliveryCount === null ||
      record.deadLetterQueue === null ||
      held.deliveryCount < record.maxDeliveryCount
    )
      return false;
    await this.#publishDeadLetter(record, held.message, DEAD_LETTER_REASONS.maxDeliveryCount, undefined);
    held.channel.ack(held.message);
    return true;
  }

  /**
   * An abandon with a delay: a copy goes (confirmed) to the holding queue for that delay, carrying
   * the deliveries so far, then the delivery is acknowledged. The abandon that uses the last
   * delivery the queue allows dead-letters instead, as the broker would on a plain abandon.
   */
  async #abandonLater(held: Held, delayMs: number): Promise<void> {
    const { record } = held;
    if (await this.#deadLetteredAsLast(held)) return;
    const parts = copyWithDeliveries(held.message, held.deliveryCount, held.brokerQueue);
    const holding = await this.#holding(record.name, held.brokerQueue, delayMs);
    const publisher = await this.#connection.publisher();
    await publisher.publish(holding, parts.content, parts.options);
    held.channel.ack(held.message);
  }

  async acceptSession(
    queue: string,
    sessionId: string | undefined,
    waitMs: number,
    context: OperationContext,
  ): Promise<SessionProvider> {
    const deadline = this.#clock.now() + waitMs;
    if (sessionId === undefined) {
      const entry = await this.#entryForRead(queue, deadline, context.signal);
      if (entry === undefined) throw noQueueToAcceptFrom(queue, sessionId);
      const session = await this.#acceptNext(queue, deadline, context.signal, false);
      if (session === undefined)
        throw new QueueError("NoSessionAvailable", `no session of ${queue} was free in the time given`);
      return session;
    }
    const entry = await this.#sessionEntry(queue);
    await this.#declareSession(entry.record, sessionId);
    const session = await this.#lock(entry, sessionId, false);
    if (session === undefined)
      throw new QueueError("SessionLocked", `session ${sessionId} of ${queue} is held by another receiver`);
    return session;
  }

  async #sessionEntry(queue: string): Promise<CatalogEntry> {
    const entry = await this.#catalog.get(queue);
    if (entry === undefined) throw new QueueError("QueueNotFound", `queue ${queue} does not exist`);
    if (!entry.record.fifo)
      throw new QueueError(
        "Unsupported",
        `queue ${queue} has no sessions: create it with { requiresSession: true }`,
      );
    return entry;
  }

  /**
   * Locks the next session of `queue` that has messages ready, looking again every
   * {@link SESSION_POLL_MS} until `deadline`: AMQP tells no one when another process lets a session go.
   */
  async #acceptNext(
    queue: string,
    deadline: number,
    signal: AbortSignal,
    borrowed: boolean,
  ): Promise<RabbitSession | undefined> {
    for (;;) {
      const entry = await this.#sessionEntry(queue);
      const ready = await this.#readySessions(entry);
      for (const sessionId of ready) {
        const session = await this.#lock(entry, sessionId, borrowed);
        if (session !== undefined) return session;
      }
      const left = deadline - this.#clock.now();
      if (left <= 0 || signal.aborted || this.#closing.signal.aborted) return undefined;
      await sleep(this.#clock, Math.min(left, SESSION_POLL_MS), signal);
    }
  }

  /** The sessions of `entry` with messages ready now, in the order they first came. */
  async #readySessions(entry: CatalogEntry): Promise<string[]> {
    const ready: string[] = [];
    let channel: Channel | undefined;
    try {
      // By their first messages' order, then the rest (made by an accept, or by another process's send not yet noted).
      for (const sessionId of new Set([...entry.sent, ...entry.sessions])) {
        channel ??= await this.#connection.channel();
        try {
          const { messageCount } = await channel.checkQueue(
            this.#names.session(entry.record.name, sessionId),
          );
          if (messageCount > 0) ready.push(sessionId);
        } catch (error) {
          if (!isNotFound(error)) throw error;
          channel = undefined;
        }
      }
    } catch (error) {
      throw this.#connection.failure(error, `look for sessions of ${entry.record.name}`);
    } finally {
      await channel?.close().catch(() => undefined);
    }
    return ready;
  }

  /** Takes the lock of a session (its exclusive lock queue, on a channel of its own); undefined when another holds it. */
  async #lock(entry: CatalogEntry, sessionId: string, borrowed: boolean): Promise<RabbitSession | undefined> {
    // The broker lets the connection that holds an exclusive queue declare it again: this
    // client's own holds are checked here.
    const lock = this.#names.sessionLock(entry.record.name, sessionId);
    if (this.#locks.has(lock)) return undefined;
    this.#locks.add(lock);
    try {
      return await this.#takeLock(entry, sessionId, lock, borrowed);
    } finally {
      if (![...this.#sessions].some((session) => session.lockName === lock)) this.#locks.delete(lock);
    }
  }

  async #takeLock(
    entry: CatalogEntry,
    sessionId: string,
    lock: string,
    borrowed: boolean,
  ): Promise<RabbitSession | undefined> {
    const channel = await this.#connection.channel();
    try {
      await takeSessionLock(channel, lock);
    } catch (error) {
      // A refused declare closes its channel: that is why it has one of its own.
      if (replyCode(error) === 405) return undefined;
      throw this.#connection.failure(error, `lock session ${sessionId} of ${entry.record.name}`);
    }
    channel.on("close", () => this.#held.dropChannel(channel));
    const session = new RabbitSession(
      this.#sessionDeps,
      entry.record.name,
      sessionId,
      entry.record,
      channel,
      this.#defaults.sessionLockDurationMs,
      borrowed,
      (ended) => {
        this.#sessions.delete(ended);
        this.#locks.delete(lock);
      },
    );
    this.#sessions.add(session);
    return session;
  }

  /** The queue a send goes to; with `createQueues`, made on first use. */
  async #entryForSend(queue: string): Promise<CatalogEntry> {
    const entry = await this.#catalog.known(queue);
    if (entry !== undefined) return entry;
    if (!this.#createQueues) throw new QueueError("QueueNotFound", `queue ${queue} does not exist`);
    await this.#admin.createQueue(queue).catch((error: unknown) => {
      if (!QueueError.is(error, "QueueAlreadyExists")) throw error;
    });
    const made = await this.#catalog.known(queue);
    if (made === undefined) throw new QueueError("QueueNotFound", `queue ${queue} does not exist`);
    return made;
  }

  /**
   * The queue a read goes to. Reads never create queues: with `createQueues`, one that does not
   * exist yet is waited for until `deadline` (undefined after), else it is `QueueNotFound`.
   */
  async #entryForRead(
    queue: string,
    deadline: number,
    signal: AbortSignal,
  ): Promise<CatalogEntry | undefined> {
    for (;;) {
      const entry = await this.#catalog.known(queue);
      if (entry !== undefined) return entry;
      if (!this.#createQueues) throw new QueueError("QueueNotFound", `queue ${queue} does not exist`);
      const left = deadline - this.#clock.now();
      if (left <= 0 || signal.aborted) return undefined;
      await sleep(this.#clock, Math.min(left, 1_000), signal);
    }
  }

  /** Stops this client's consumers of deleted broker queues. */
  async #forget(queue: string, brokerQueues: readonly string[]): Promise<void> {
    // Its sessions and locks are gone with it: later calls on them are SessionLockLost and InvalidReceipt.
    await Promise.allSettled(
      [...this.#sessions].filter((session) => session.queue === queue).map((session) => session.drop()),
    );
    for (const held of this.#held.of(new Set(brokerQueues))) void this.#held.take(held.id)?.released?.();
    for (const brokerQueue of brokerQueues) {
      const receiver = this.#receivers.get(brokerQueue);
      this.#receivers.delete(brokerQueue);
      this.#declared.delete(brokerQueue);
      await receiver?.close();
    }
  }

  /**
   * Ends waits at once, lets sessions go and closes the connection: the broker gives back every
   * delivery this client held, and its session locks end with it.
   */
  async close(): Promise<void> {
    if (this.#closing.signal.aborted) return;
    this.#closing.abort();
    // What was published and not counted yet is written while the connection is still there.
    await this.#counts.flush().catch(() => undefined);
    await Promise.allSettled([...this.#sessions].map((session) => session.release()));
    await Promise.allSettled([...this.#receivers.values()].map((receiver) => receiver.close()));
    this.#held.clear();
    await this.#connection.close();
  }
}
