import type { ServiceBusClient, ServiceBusReceiver } from "@azure/service-bus";
import { withOwnSignal } from "../../core/abort-watch.js";
import type { QueueAdmin } from "../../core/admin.js";
import { awaitQueue, noQueueToAcceptFrom } from "../../core/await-queue.js";
import { sendNamingSessions } from "../../core/batch.js";
import type { Capabilities } from "../../core/capabilities.js";
import { type Clock, systemClock } from "../../core/clock.js";
import type { ProviderConfig } from "../../core/config.js";
import { type BatchEntryResult, QueueError } from "../../core/errors.js";
import type { ReceivedMessage } from "../../core/message.js";
import type {
  OperationContext,
  OutgoingMessage,
  ProviderTelemetry,
  QueueProvider,
  SessionProvider,
  TopicProvider,
} from "../../core/provider.js";
import type { ReceiptHandle } from "../../core/receipt-handle.js";
import { DEFAULT_OPERATION_TIMEOUT_MS } from "../../core/standard-queue-client.js";
import { serverOf } from "../../core/telemetry/server-address.js";
import { BorrowedSessions } from "./borrowed-sessions.js";
import type { ServiceBusProviderConfig } from "./config.js";
import { connect, type ServiceBusConnection } from "./connection.js";
import { DelayedAbandons } from "./delayed-abandons.js";
import { fromSdkError, isAbort } from "./errors.js";
import { HeldLocks } from "./held-locks.js";
import { Links } from "./links.js";
import { deadLetterOptions, deadLetterSource, toDelivery } from "./message-mapping.js";
import { sendThroughLinks } from "./send-batches.js";
import { ServiceBusAdmin } from "./servicebus-admin.js";
import { ServiceBusTopics } from "./servicebus-topics.js";
import { acceptSdkSession, MIN_RECEIVE_WAIT_MS, ServiceBusSession, type SessionDeps } from "./sessions.js";
import { Settlement } from "./settlement.js";

/** Azure Service Bus's Standard tier message limit (Premium allows more; the service has the last word). */
export const SERVICE_BUS_MAX_MESSAGE_BYTES = 262_144;

/** What Service Bus can do as queue-runtime drives it. */
export const SERVICE_BUS_CAPABILITIES: Capabilities = Object.freeze({
  sessions: "native",
  batching: true,
  maxBatchSize: 100,
  maxMessageBytes: SERVICE_BUS_MAX_MESSAGE_BYTES,
  deadLetter: "native",
  delayedDelivery: true,
  maxDelayMs: 365 * 86_400_000,
  sessionState: true,
  lockRenewal: true,
  ordering: "best-effort",
  timeToLive: true,
  redrive: true,
  peek: true,
  topics: true,
  filters: ["correlation", "sql"] as const,
  // Service Bus sends only to a topic, and its queues and topics share one namespace of names.
  subscriptionRedrive: false,
  entityNames: "one",
  lockedCount: false,
});

/** Options of the Service Bus provider beyond its config. */
export interface ServiceBusProviderOptions {
  readonly createQueues: boolean;
  /** The source of time for delayed abandons and session waits (default the system clock). */
  readonly clock?: Clock;
}

/** Builds the Service Bus provider from its config: clients made, nothing sent yet. */
export async function createServiceBusProvider(
  config: ProviderConfig,
  options: ServiceBusProviderOptions,
): Promise<ServiceBusProvider> {
  return new ServiceBusProvider(config as ServiceBusProviderConfig, options);
}

/**
 * The {@link QueueProvider} for Azure Service Bus (and `queue-runtime serve --servicebus`, and
 * the official emulator), on the `@azure/service-bus` SDK over AMQP: native sessions, dead
 * letters, scheduled messages and lock renewal. The SDK makes one attempt per call; the standard
 * client does the retrying.
 */
export class ServiceBusProvider implements QueueProvider {
  readonly providerType = "servicebus";
  readonly capabilities: Capabilities = SERVICE_BUS_CAPABILITIES;
  readonly telemetry: ProviderTelemetry;
  readonly admin: QueueAdmin;
  readonly topics: TopicProvider;
  readonly #connection: ServiceBusConnection;
  readonly #clock: Clock;
  readonly #createQueues: boolean;
  readonly #closing = new AbortController();
  readonly #links: Links;
  readonly #held = new HeldLocks();
  readonly #settlement: Settlement;
  readonly #delayed: DelayedAbandons;
  readonly #sessionDeps: SessionDeps;
  readonly #borrowed: BorrowedSessions;
  readonly #sessions = new Set<ServiceBusSession>();
  /** Queues found to require sessions, whose plain receives lock a session each. */
  readonly #sessionQueues = new Set<string>();
  /** Queues this provider made (or found) already, when it creates them on first use. */
  readonly #ensured = new Set<string>();
  #closed = false;

  constructor(config: ServiceBusProviderConfig, options: ServiceBusProviderOptions) {
    this.#connection = connect(config, DEFAULT_OPERATION_TIMEOUT_MS);
    const endpoint =
      "connectionString" in config
        ? /Endpoint\s*=\s*([^;]*)/i.exec(String(config.connectionString))?.[1]
        : `sb://${config.fullyQualifiedNamespace}`;
    this.telemetry = { system: "servicebus", ...serverOf(endpoint) };
    this.#clock = options.clock ?? systemClock;
    this.#createQueues = options.createQueues;
    this.#links = new Links(this.#connection.client);
    this.#settlement = new Settlement(this.#links, this.#held, this.#connection.redact);
    this.#delayed = new DelayedAbandons(this.#clock, this.#settlement);
    this.#sessionDeps = {
      client: this.#connection.client,
      clock: this.#clock,
      held: this.#held,
      settlement: this.#settlement,
      redact: this.#connection.redact,
      providerType: this.providerType,
    };
    this.#borrowed = new BorrowedSessions(this.#sessionDeps);
    this.admin = new ServiceBusAdmin({
      admin: this.#connection.admin,
      client: this.#connection.client,
      links: this.#links,
      clock: this.#clock,
      redact: this.#connection.redact,
      signal: this.#closing.signal,
    });
    this.topics = new ServiceBusTopics({
      admin: this.#connection.admin,
      links: this.#links,
      clock: this.#clock,
      redact: this.#connection.redact,
      signal: this.#closing.signal,
      createQueues: this.#createQueues,
      maxMessageBytes: SERVICE_BUS_MAX_MESSAGE_BYTES,
    });
  }

  /** The SDK client underneath, for what queue-runtime does not cover (rule actions, transactions). */
  get sdkClient(): ServiceBusClient {
    return this.#connection.client;
  }

  async sendMessages(
    queue: string,
    messages: readonly OutgoingMessage[],
    context: OperationContext,
  ): Promise<BatchEntryResult[]> {
    // Messages with sessions make a session queue: Service Bus fixes that when a queue is made.
    await this.#ensure(
      queue,
      messages.some((message) => message.sessionId !== undefined),
    );
    try {
      return await this.#send(queue, messages, context);
    } catch (error) {
      // The queue is looked at again each time: it may have been made again without sessions.
      const withoutSession = messages.some((message) => message.sessionId === undefined);
      if (
        !withoutSession ||
        !QueueError.is(error, "Validation") ||
        (await this.admin.getQueue(queue))?.fifo !== true
      )
        throw error;
      // Service Bus refuses a whole batch for one message without a session: those fail alone.
      return sendNamingSessions(queue, messages, (withSession) => this.#send(queue, withSession, context));
    }
  }

  /** Sends through the queue's sender. */
  #send(
    queue: string,
    messages: readonly OutgoingMessage[],
    context: OperationContext,
  ): Promise<BatchEntryResult[]> {
    return sendThroughLinks(this.#links, queue, messages, this.#clock.now(), context.signal, (error) =>
      fromSdkError(error, `sendMessages to ${queue}`, this.#connection.redact),
    );
  }

  async receiveMessages(
    queue: string,
    maxMessages: number,
    waitMs: number,
    context: OperationContext,
  ): Promise<ReceivedMessage[]> {
    if (!(await this.#awaitQueue(queue, waitMs, context.signal))) return [];
    if (this.#sessionQueues.has(queue)) return this.#receiveFromSession(queue, maxMessages, waitMs, context);
    return this.#receive(queue, maxMessages, waitMs, context);
  }

  /** Receives through the queue's receiver link (a queue found to require sessions is read through a session). */
  async #receive(
    queue: string,
    maxMessages: number,
    waitMs: number,
    context: OperationContext,
  ): Promise<ReceivedMessage[]> {
    const receiver = this.#links.take(queue);
    let messages: Awaited<ReturnType<ServiceBusReceiver["receiveMessages"]>>;
    try {
      messages = await withOwnSignal(context.signal, (abortSignal) =>
        receiver.receiveMessages(maxMessages, {
          maxWaitTimeInMs: Math.max(waitMs, MIN_RECEIVE_WAIT_MS),
          abortSignal,
        }),
      );
      this.#links.giveBack(queue, receiver, false);
    } catch (error) {
      // An aborted receive leaves its credit on the link (the SDK does not drain it): a message
      // the service sends there later would sit unseen until its lock ends, so the link goes too.
      this.#links.giveBack(queue, receiver, true);
      if (context.signal.aborted && isAbort(error)) return [];
      if (requiresSessions(error)) {
        this.#sessionQueues.add(queue);
        return this.#receiveFromSession(queue, maxMessages, waitMs, context);
      }
      throw fromSdkError(error, `receiveMessages from ${queue}`, this.#connection.redact);
    }
    const now = this.#clock.now();
    return messages.map((message) => {
      this.#held.hold({ message, receiver }, now);
      return toDelivery(message, queue, this.providerType, now);
    });
  }

  /** A plain receive of a queue that requires sessions: the messages of a session borrowed for them. */
  #receiveFromSession(
    queue: string,
    maxMessages: number,
    waitMs: number,
    context: OperationContext,
  ): Promise<ReceivedMessage[]> {
    return this.#borrowed
      .receive(queue, maxMessages, waitMs, context.signal)
      .catch((error: unknown) => this.#whyNoSession(queue, undefined, error));
  }

  completeMessage(receipt: ReceiptHandle): Promise<void> {
    this.#delayed.cancel(receipt);
    return this.#settlement.settle(receipt, "completeMessage", (receiver, message) =>
      receiver.completeMessage(message),
    );
  }

  abandonMessage(receipt: ReceiptHandle, delayMs: number): Promise<void> {
    if (delayMs > 0) return this.#delayed.start(receipt, delayMs);
    this.#delayed.cancel(receipt);
    return this.#settlement.settle(receipt, "abandonMessage", (receiver, message) =>
      receiver.abandonMessage(message),
    );
  }

  deadLetterMessage(receipt: ReceiptHandle, reason: string, description: string | undefined): Promise<void> {
    this.#delayed.cancel(receipt);
    return this.#settlement.settle(receipt, "deadLetterMessage", (receiver, message) =>
      receiver.deadLetterMessage(message, deadLetterOptions(reason, description)),
    );
  }

  renewMessageLock(receipt: ReceiptHandle): Promise<Date> {
    return this.#settlement.renew(receipt);
  }

  async acceptSession(
    queue: string,
    sessionId: string | undefined,
    waitMs: number,
    context: OperationContext,
  ): Promise<SessionProvider> {
    // The next free session may come with the send that makes the queue; a named one cannot be held
    // on a queue that does not exist.
    if (!(await this.#awaitQueue(queue, sessionId === undefined ? waitMs : 0, context.signal)))
      throw noQueueToAcceptFrom(queue, sessionId);
    const receiver = await acceptSdkSession(
      this.#sessionDeps,
      queue,
      sessionId,
      waitMs,
      context.signal,
    ).catch((error: unknown) => this.#whyNoSession(queue, sessionId, error));
    const session = new ServiceBusSession(receiver, queue, this.#sessionDeps, (closed) =>
      this.#sessions.delete(closed),
    );
    this.#sessions.add(session);
    return session;
  }

  /**
   * Ends waits at once, abandons the messages held for a delay, lets sessions go, then closes
   * every link and the connection: nothing the provider opened stays open.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort();
    await this.#delayed.close();
    await Promise.allSettled([
      ...[...this.#sessions].map((session) => session.closeSession()),
      this.#borrowed.close(),
    ]);
    this.#held.clear();
    await this.#links.close();
    await this.#connection.client.close();
  }

  /**
   * The error of an accept that found no session to lock: the SDK says the same (none free, or
   * locked, or a link it could not make) for a queue that does not exist or has no sessions, so
   * the queue is looked at then.
   */
  async #whyNoSession(queue: string, sessionId: string | undefined, error: unknown): Promise<never> {
    const unclear = ["SessionLocked", "NoSessionAvailable", "Provider"];
    if (!QueueError.is(error) || !unclear.includes(error.code)) throw error;
    const info = await this.admin.getQueue(queue);
    if (info === null && !(this.#createQueues && sessionId === undefined))
      throw new QueueError("QueueNotFound", `queue ${queue} does not exist`, { cause: error });
    if (info !== null && !info.fifo)
      throw new QueueError(
        "Unsupported",
        `queue ${queue} has no sessions: create it with { requiresSession: true }`,
        { cause: error },
      );
    throw error;
  }

  /**
   * Whether `queue` is there to read. Reads never create queues: with `createQueues`, one that does
   * not exist yet is waited for (up to `waitMs`) until a send makes it.
   */
  async #awaitQueue(queue: string, waitMs: number, signal: AbortSignal): Promise<boolean> {
    if (!this.#createQueues || this.#ensured.has(queue) || deadLetterSource(queue) !== undefined) return true;
    const exists = async () => {
      if ((await this.admin.getQueue(queue)) === null) return false;
      this.#ensured.add(queue);
      return true;
    };
    return awaitQueue(exists, this.#clock, this.#clock.now() + waitMs, signal);
  }

  /** With `createQueues`, makes `queue` once (a session queue when `sessions`), through the admin API. */
  async #ensure(queue: string, sessions = false): Promise<void> {
    if (!this.#createQueues || this.#ensured.has(queue) || deadLetterSource(queue) !== undefined) return;
    if ((await this.admin.getQueue(queue)) === null)
      await this.admin.createQueue(queue, { requiresSession: sessions }).catch((error: unknown) => {
        if (!QueueError.is(error, "QueueAlreadyExists")) throw error;
      });
    this.#ensured.add(queue);
  }
}

/** True when Service Bus refused a plain receiver because the queue requires sessions. */
function requiresSessions(error: unknown): boolean {
  return /requires sessions|non-?sessionful/i.test(String((error as Error | null)?.message));
}
