import { receiveInRuns, retryFailedEntries, sendInRuns } from "./batch.js";
import type { Capabilities, ProviderType } from "./capabilities.js";
import { CheckedAdmin } from "./checked-admin.js";
import { type Clock, systemClock } from "./clock.js";
import type { BaseConsumer, ConsumerHost } from "./consumer/base-consumer.js";
import { BatchConsumer } from "./consumer/batch-consumer.js";
import type { BatchHandler, Consumer, MessageHandler } from "./consumer/consumer.js";
import { MessageConsumer } from "./consumer/message-consumer.js";
import {
  type ConsumeBatchesOptions,
  type ConsumeOptions,
  type ConsumerKind,
  type ConsumerSettings,
  type ConsumeSessionsOptions,
  resolveConsumerSettings,
} from "./consumer/options.js";
import { SessionConsumer } from "./consumer/session-consumer.js";
import { type BatchEntryResult, QueueError, type QueueErrorCode } from "./errors.js";
import { Invoker } from "./invoker.js";
import type { MessageInput, ReceivedMessage } from "./message.js";
import type { OperationContext, OutgoingMessage, QueueProvider } from "./provider.js";
import type { ClientAdmin, ClientMetrics, QueueClient, SessionClient, WaitOptions } from "./queue-client.js";
import type { ReceiptHandle } from "./receipt-handle.js";
import { type RetryListener, type RetryPolicy, resolveRetryPolicy } from "./retry.js";
import type { AnySchema, SchemaOutput, StandardSchemaV1 } from "./standard-schema.js";
import { StandardSessionClient } from "./standard-session-client.js";
import { ClientTelemetry } from "./telemetry/client-telemetry.js";
import { checkTelemetryOption, type TelemetryOption } from "./telemetry/telemetry-option.js";
import { type SettleMethod, tracedReceive, tracedSettle } from "./telemetry/traced-operations.js";
import {
  checkReason,
  checkReceipt,
  MAX_RECEIVE_COUNT,
  MAX_WAIT_MS,
  prepareMessage,
  validateCount,
  validateDuration,
  validateQueueName,
  validateSessionId,
} from "./validation.js";

/** The default most one call may take, waits excluded. */
export const DEFAULT_OPERATION_TIMEOUT_MS = 30_000;

/** What `acceptSession` answers after its own wait: transient for the caller, but not repeated here. */
const ACCEPT_ANSWERS: ReadonlySet<QueueErrorCode> = new Set(["NoSessionAvailable", "SessionLocked"]);

/** How a standard client wraps its provider. */
export interface StandardClientOptions {
  retryPolicy?: Partial<RetryPolicy>;
  timeouts?: { operationMs?: number };
  clock?: Clock;
  /** Told about every attempt that is repeated. */
  onRetry?: RetryListener;
  /** OpenTelemetry spans and metrics: the global providers by default, `false` for none, or providers of its own. */
  telemetry?: TelemetryOption;
}

/** A fresh set of zeroed counters. */
export function emptyMetrics(): ClientMetrics {
  return {
    sent: 0,
    published: 0,
    received: 0,
    completed: 0,
    abandoned: 0,
    deadLettered: 0,
    renewed: 0,
    retries: 0,
    errors: {},
  };
}

/** The standard client's options checked, with their defaults: the operation timeout, the retry policy and telemetry. */
export function checkStandardClientOptions(options: StandardClientOptions): {
  operationMs: number;
  retryPolicy: RetryPolicy;
  telemetry: TelemetryOption;
} {
  return {
    telemetry: checkTelemetryOption(options.telemetry),
    operationMs: validateDuration(
      "timeouts.operationMs",
      options.timeouts?.operationMs ?? DEFAULT_OPERATION_TIMEOUT_MS,
      1,
      MAX_WAIT_MS,
    ),
    retryPolicy: resolveRetryPolicy(options.retryPolicy),
  };
}

/**
 * The {@link QueueClient} over any {@link QueueProvider}: it checks every argument before anything
 * is sent, splits batches to the provider's limit, repeats transient failures with backoff and
 * jitter, puts a deadline on every attempt, and counts what it did.
 */
export class StandardQueueClient implements QueueClient {
  /** The provider this client drives. */
  readonly provider: QueueProvider;
  readonly admin: ClientAdmin;
  readonly metrics: ClientMetrics = emptyMetrics();
  readonly #invoker: Invoker;
  readonly #consumers = new Set<Consumer>();
  readonly #host: ConsumerHost;
  readonly #telemetry: ClientTelemetry;

  constructor(provider: QueueProvider, options: StandardClientOptions = {}) {
    this.provider = provider;
    const { operationMs, retryPolicy, telemetry } = checkStandardClientOptions(options);
    this.#telemetry = new ClientTelemetry(telemetry, provider.providerType, provider.telemetry);
    this.#invoker = new Invoker({
      clock: options.clock ?? systemClock,
      retryPolicy,
      operationMs,
      metrics: this.metrics,
      onRetry: options.onRetry,
      boundedCalls: provider.enforcesTimeouts === true,
    });
    this.admin = new CheckedAdmin(provider, this.#invoker);
    this.#host = {
      client: this,
      clock: options.clock ?? systemClock,
      telemetry: this.#telemetry,
      stopped: (consumer) => this.#consumers.delete(consumer),
    };
  }

  get providerType(): ProviderType {
    return this.provider.providerType;
  }

  get capabilities(): Capabilities {
    return this.provider.capabilities;
  }

  supportsSessions(): boolean {
    return this.provider.capabilities.sessions !== "none";
  }

  supportsBatching(): boolean {
    return this.provider.capabilities.batching;
  }

  async sendMessage(queue: string, message: MessageInput): Promise<string> {
    return onlyEntry(await this.sendMessages(queue, [message]).catch(onlyEntryFailure));
  }

  async sendMessages(queue: string, messages: readonly MessageInput[]): Promise<string[]> {
    const ids = await this.#sendAll("sendMessages", queue, messages, (entries, context) =>
      this.provider.sendMessages(queue, entries, context),
    );
    this.metrics.sent += ids.length;
    return ids;
  }

  async publishMessage(topic: string, message: MessageInput): Promise<string> {
    return onlyEntry(await this.publishMessages(topic, [message]).catch(onlyEntryFailure));
  }

  async publishMessages(topic: string, messages: readonly MessageInput[]): Promise<string[]> {
    const topics = this.provider.topics;
    if (topics === undefined || !this.provider.capabilities.topics)
      throw new QueueError("Unsupported", `the ${this.providerType} provider has no topics`);
    const ids = await this.#sendAll("publishMessages", topic, messages, (entries, context) =>
      topics.publishMessages(topic, entries, context),
    );
    this.metrics.published += ids.length;
    return ids;
  }

  /**
   * Checks and prepares `messages` for `target` (a queue or a topic), then hands them to `call` in
   * runs of the provider's batch size, sending again the entries that failed transiently.
   */
  async #sendAll(
    what: "sendMessages" | "publishMessages",
    target: string,
    messages: readonly MessageInput[],
    call: (entries: readonly OutgoingMessage[], context: OperationContext) => Promise<BatchEntryResult[]>,
  ): Promise<string[]> {
    this.#invoker.assertOpen();
    validateQueueName(target);
    if (!Array.isArray(messages)) throw new QueueError("Validation", `${what} takes an array of messages`);
    if (messages.length === 0) return [];
    const capabilities = this.provider.capabilities;
    const prepared = messages.map((message, index) =>
      prepareMessage(message, capabilities, messages.length === 1 ? undefined : index),
    );
    const send = (entries: readonly OutgoingMessage[]) =>
      this.#invoker.run(what, (context) => call(entries, context));
    const sendAll = (entries: readonly OutgoingMessage[]) =>
      sendInRuns(entries, capabilities.batching ? capabilities.maxBatchSize : 1, async (run) =>
        retryFailedEntries(run, await send(run), send),
      );
    const recorder = this.#telemetry.active();
    if (recorder === undefined) return sendAll(prepared);
    return recorder.send(what === "sendMessages" ? "send" : "publish", target, prepared, sendAll);
  }

  async receiveMessage(queue: string, timeoutMs = 0, options?: WaitOptions): Promise<ReceivedMessage | null> {
    const [message] = await this.receiveMessages(queue, 1, timeoutMs, options);
    return message ?? null;
  }

  async receiveMessages(
    queue: string,
    maxMessages: number,
    timeoutMs = 0,
    options?: WaitOptions,
  ): Promise<ReceivedMessage[]> {
    this.#invoker.assertOpen();
    validateQueueName(queue);
    validateCount("maxMessages", maxMessages, 1, MAX_RECEIVE_COUNT);
    validateDuration("timeoutMs", timeoutMs, 0, MAX_WAIT_MS);
    const received = await tracedReceive(this.#telemetry, queue, () =>
      receiveInRuns(maxMessages, this.provider.capabilities.maxBatchSize, timeoutMs, (max, wait) =>
        this.#invoker.run(
          "receiveMessages",
          (context) => this.provider.receiveMessages(queue, max, wait, context),
          wait,
          options?.signal,
        ),
      ),
    );
    this.metrics.received += received.length;
    return received;
  }

  async completeMessage(receipt: ReceiptHandle | string): Promise<void> {
    const handle = this.#receipt(receipt);
    await this.#settle("completeMessage", handle, (context) =>
      this.provider.completeMessage(handle, context),
    );
    this.metrics.completed++;
  }

  async abandonMessage(receipt: ReceiptHandle | string, options?: { delayMs?: number }): Promise<void> {
    const handle = this.#receipt(receipt);
    const delayMs =
      options?.delayMs === undefined
        ? 0
        : validateDuration("delayMs", options.delayMs, 0, this.provider.capabilities.maxDelayMs);
    await this.#settle("abandonMessage", handle, (context) =>
      this.provider.abandonMessage(handle, delayMs, context),
    );
    this.metrics.abandoned++;
  }

  async deadLetterMessage(
    receipt: ReceiptHandle | string,
    reason: string,
    description?: string,
  ): Promise<void> {
    const handle = this.#receipt(receipt);
    checkReason(reason, description);
    await this.#settle("deadLetterMessage", handle, (context) =>
      this.provider.deadLetterMessage(handle, reason, description, context),
    );
    this.metrics.deadLettered++;
  }

  async renewMessageLock(receipt: ReceiptHandle | string): Promise<Date> {
    const handle = this.#receipt(receipt);
    if (!this.provider.capabilities.lockRenewal)
      throw new QueueError("Unsupported", `the ${this.providerType} provider cannot renew message locks`);
    const lockedUntil = await this.#settle("renewMessageLock", handle, (context) =>
      this.provider.renewMessageLock(handle, context),
    );
    this.metrics.renewed++;
    return lockedUntil;
  }

  async acceptSession(
    queue: string,
    sessionId?: string,
    timeoutMs = 0,
    options?: WaitOptions,
  ): Promise<SessionClient> {
    this.#invoker.assertOpen();
    validateQueueName(queue);
    if (sessionId !== undefined) validateSessionId(sessionId);
    validateDuration("timeoutMs", timeoutMs, 0, MAX_WAIT_MS);
    if (!this.supportsSessions())
      throw new QueueError("Unsupported", `the ${this.providerType} provider has no sessions`);
    const session = await this.#invoker.run(
      "acceptSession",
      (context) => this.provider.acceptSession(queue, sessionId, timeoutMs, context),
      timeoutMs,
      options?.signal,
      ACCEPT_ANSWERS,
    );
    return new StandardSessionClient(session, this.provider, this.#invoker, this.metrics, {
      telemetry: this.#telemetry,
      queue,
    });
  }

  consume<Schema extends StandardSchemaV1 = AnySchema>(
    queue: string,
    handler: MessageHandler<SchemaOutput<Schema>>,
    options: ConsumeOptions<Schema> = {},
  ): Consumer {
    return this.#start("consume", queue, handler, options, MessageConsumer);
  }

  consumeBatches<Schema extends StandardSchemaV1 = AnySchema>(
    queue: string,
    handler: BatchHandler<SchemaOutput<Schema>>,
    options: ConsumeBatchesOptions<Schema> = {},
  ): Consumer {
    return this.#start("consumeBatches", queue, handler, options, BatchConsumer);
  }

  consumeSessions<Schema extends StandardSchemaV1 = AnySchema>(
    queue: string,
    handler: MessageHandler<SchemaOutput<Schema>>,
    options: ConsumeSessionsOptions<Schema> = {},
  ): Consumer {
    return this.#start("consumeSessions", queue, handler, options, SessionConsumer);
  }

  /** Checks a consumer's arguments (`Configuration` when wrong), then starts it and keeps it until it stops. */
  #start<Handler>(
    kind: ConsumerKind,
    queue: string,
    handler: unknown,
    options: ConsumeBatchesOptions<StandardSchemaV1> & ConsumeSessionsOptions<StandardSchemaV1>,
    Kind: new (
      host: ConsumerHost,
      queue: string,
      handler: Handler,
      settings: ConsumerSettings,
    ) => BaseConsumer<Handler>,
  ): Consumer {
    this.#invoker.assertOpen();
    validateQueueName(queue);
    if (typeof handler !== "function")
      throw new QueueError("Configuration", `${kind}() takes a handler function after the queue name`);
    const settings = resolveConsumerSettings(kind, options);
    if (kind === "consumeSessions" && !this.supportsSessions())
      throw new QueueError("Unsupported", `the ${this.providerType} provider has no sessions`);
    const consumer = new Kind(this.#host, queue, handler as Handler, settings);
    this.#consumers.add(consumer);
    consumer.start();
    return consumer;
  }

  async close(): Promise<void> {
    if (this.#invoker.closed) return;
    // Consumers first: their handlers settle what they run while the client still can.
    await Promise.all([...this.#consumers].map((consumer) => consumer.stop()));
    if (this.#invoker.closed) return;
    this.#invoker.close();
    await this.provider.close();
  }

  /** Runs a settlement of `handle`'s message through the invoker, traced when telemetry records. */
  #settle<T>(
    what: SettleMethod,
    handle: ReceiptHandle,
    call: (context: OperationContext) => Promise<T>,
  ): Promise<T> {
    return tracedSettle(this.#telemetry, what, handle.queue, () => this.#invoker.run(what, call));
  }

  #receipt(receipt: ReceiptHandle | string): ReceiptHandle {
    this.#invoker.assertOpen();
    return checkReceipt(receipt, this.provider.providerType);
  }
}

/** The one id a batch of one resolved. */
function onlyEntry(ids: string[]): string {
  return ids[0] as string;
}

/** A batch of one that failed failed for its one reason: that reason is thrown. */
function onlyEntryFailure(error: unknown): never {
  const only = QueueError.is(error, "PartialBatchFailure") ? error.results?.[0] : undefined;
  if (only !== undefined && !only.ok) throw only.error;
  throw error;
}
