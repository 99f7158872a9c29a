import { MAX_MESSAGE_ATTRIBUTES } from "../../aws/json-protocol/sqs-validation.js";
import type { QueueAdmin } from "../../core/admin.js";
import { awaitQueue, noQueueToAcceptFrom } from "../../core/await-queue.js";
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
} from "../../core/provider.js";
import type { ReceiptHandle } from "../../core/receipt-handle.js";
import { DEFAULT_OPERATION_TIMEOUT_MS } from "../../core/standard-queue-client.js";
import { serverOf } from "../../core/telemetry/server-address.js";
import type { SqsProviderConfig } from "./config.js";
import { CredentialSource } from "./credentials.js";
import { deadLetter } from "./dead-letters.js";
import { DeleteBatcher } from "./delete-batcher.js";
import { resolveEndpoint } from "./endpoint.js";
import { SQS_MAX_DELAY_SECONDS, SQS_MAX_MESSAGE_BYTES } from "./message-mapping.js";
import { QueueDirectory, type SqsQueue } from "./queue-urls.js";
import { parseReceipt, receiptQueueSettings } from "./receipts.js";
import { receiveBatch } from "./receive-batch.js";
import { ReceivedMessages } from "./received-messages.js";
import { sendBatch } from "./send-batch.js";
import { acceptSession, type SqsSession } from "./sessions.js";
import { SqsAdmin } from "./sqs-admin.js";
import type { SqsContext } from "./sqs-context.js";
import { SqsHttp } from "./sqs-http.js";
import { changeVisibility, visibilitySeconds } from "./visibility.js";

/** What SQS can do as queue-runtime drives it. */
export const SQS_CAPABILITIES: Capabilities = Object.freeze({
  sessions: "emulated",
  batching: true,
  maxBatchSize: 10,
  maxMessageBytes: SQS_MAX_MESSAGE_BYTES,
  deadLetter: "emulated",
  delayedDelivery: true,
  maxDelayMs: SQS_MAX_DELAY_SECONDS * 1000,
  sessionState: false,
  lockRenewal: true,
  ordering: "best-effort",
  timeToLive: false,
  redrive: true,
  peek: false,
  topics: false,
  filters: [],
  subscriptionRedrive: false,
  entityNames: "apart",
  lockedCount: true,
});

/** How long the releases at close may take. */
const CLOSE_TIMEOUT_MS = 5_000;

/** Options of the SQS provider beyond its config, for tests. */
export interface SqsProviderOptions {
  readonly createQueues: boolean;
  /** The environment credentials and region are read from (default `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /** The source of time for locks, credential expiry and waits (default the system clock). */
  readonly clock?: Clock;
}

/** Builds the SQS provider from its config: endpoint, region and credentials resolved, nothing sent yet. */
export async function createSqsProvider(
  config: ProviderConfig,
  options: SqsProviderOptions,
): Promise<SqsProvider> {
  return new SqsProvider(config as SqsProviderConfig, options);
}

/**
 * The {@link QueueProvider} for Amazon SQS (or anything speaking its JSON 1.0 protocol, such as
 * `queue-runtime serve`): its own SigV4-signed client on Node's HTTP stack, no AWS SDK.
 * Sessions are emulated on FIFO message groups and dead letters on redrive policies.
 */
export class SqsProvider implements QueueProvider {
  readonly providerType = "sqs";
  readonly capabilities: Capabilities = SQS_CAPABILITIES;
  readonly admin: QueueAdmin;
  /** Every request has its own deadline: the context's timeout, plus its wait for a long poll. */
  readonly enforcesTimeouts = true;
  readonly telemetry: ProviderTelemetry;
  readonly #sqs: SqsContext;
  readonly #createQueues: boolean;
  readonly #closing = new AbortController();
  readonly #sessions = new Set<SqsSession>();
  #closed = false;

  constructor(config: SqsProviderConfig, options: SqsProviderOptions) {
    const env = options.env ?? process.env;
    const clock = options.clock ?? systemClock;
    const credentials = CredentialSource.from(config.credentials, env, clock);
    const endpoint = resolveEndpoint(config, env);
    const http = new SqsHttp(endpoint, credentials, clock);
    // Past SQS's 10 message attributes the provider packs them, which other SQS readers cannot read.
    this.telemetry = {
      system: "aws_sqs",
      ...serverOf(endpoint.url.href),
      maxAttributes: MAX_MESSAGE_ATTRIBUTES,
    };
    this.#sqs = {
      http,
      clock,
      directory: new QueueDirectory(http, clock, config.accountId),
      received: new ReceivedMessages(clock),
      deletes: new DeleteBatcher(http),
    };
    this.#createQueues = options.createQueues;
    const adminContext: OperationContext = {
      signal: this.#closing.signal,
      timeoutMs: DEFAULT_OPERATION_TIMEOUT_MS,
    };
    this.admin = new SqsAdmin(this.#sqs, () => adminContext);
  }

  async sendMessages(
    queue: string,
    messages: readonly OutgoingMessage[],
    context: OperationContext,
  ): Promise<BatchEntryResult[]> {
    const target = this.#sqs.directory.known(queue) ?? (await this.#resolve(queue, context));
    try {
      return await sendBatch(this.#sqs.http, target, messages, context);
    } catch (error) {
      throw this.#failed(target, error);
    }
  }

  async receiveMessages(
    queue: string,
    maxMessages: number,
    waitMs: number,
    context: OperationContext,
  ): Promise<ReceivedMessage[]> {
    const deadline = this.#sqs.clock.now() + waitMs;
    const source = await this.#queueToReceiveFrom(queue, deadline, context);
    if (source === undefined) return [];
    try {
      // A wait longer than SQS's 20 s is several long polls.
      for (;;) {
        const received = await receiveBatch(
          this.#sqs,
          source,
          maxMessages,
          deadline - this.#sqs.clock.now(),
          context,
        );
        if (received.length > 0 || this.#sqs.clock.now() >= deadline)
          return received.map((one) => one.delivery);
      }
    } catch (error) {
      if (context.signal.aborted) return [];
      throw this.#failed(source, error);
    }
  }

  async completeMessage(receipt: ReceiptHandle, context: OperationContext): Promise<void> {
    const { url, handle } = parseReceipt(receipt);
    await this.#sqs.received.settle(handle, () => this.#sqs.deletes.delete(url, handle, context));
  }

  async abandonMessage(receipt: ReceiptHandle, delayMs: number, context: OperationContext): Promise<void> {
    const { url, handle } = parseReceipt(receipt);
    await this.#sqs.received.settle(handle, () =>
      changeVisibility(this.#sqs.http, url, handle, visibilitySeconds(delayMs), context),
    );
  }

  deadLetterMessage(
    receipt: ReceiptHandle,
    reason: string,
    description: string | undefined,
    context: OperationContext,
  ): Promise<void> {
    return deadLetter(this.#sqs, receipt, reason, description, context);
  }

  async renewMessageLock(receipt: ReceiptHandle, context: OperationContext): Promise<Date> {
    const { url, handle } = parseReceipt(receipt);
    this.#sqs.received.assertHolds(handle);
    const { lockDurationMs } = (await receiptQueueSettings(this.#sqs, url, context)).settings;
    const lockedUntilMs = this.#sqs.clock.now() + lockDurationMs;
    await changeVisibility(this.#sqs.http, url, handle, visibilitySeconds(lockDurationMs), context);
    this.#sqs.received.extend(handle, lockedUntilMs);
    return new Date(lockedUntilMs);
  }

  async acceptSession(
    queue: string,
    sessionId: string | undefined,
    waitMs: number,
    context: OperationContext,
  ): Promise<SessionProvider> {
    // The next free group may come with the send that makes the queue; a named one needs the queue.
    const source = await this.#queueToReceiveFrom(
      queue,
      this.#sqs.clock.now() + (sessionId === undefined ? waitMs : 0),
      context,
    );
    if (source === undefined) throw noQueueToAcceptFrom(queue, sessionId);
    const session = await acceptSession(this.#sqs, source, sessionId, waitMs, context, (closed) =>
      this.#sessions.delete(closed),
    );
    this.#sessions.add(session);
    return session;
  }

  /**
   * Ends long polls at once, makes the messages held by open sessions visible again, then ends
   * what is still under way and closes the connections.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort();
    this.#sqs.http.abortLongPolls();
    const context: OperationContext = { signal: new AbortController().signal, timeoutMs: CLOSE_TIMEOUT_MS };
    await Promise.allSettled([...this.#sessions].map((session) => session.closeSession(context)));
    this.#sqs.http.close();
  }

  /**
   * The queue a receive reads. Reads never create queues: with `createQueues`, one that does not
   * exist yet is waited for until `deadline` (`undefined` if no send made it by then).
   */
  async #queueToReceiveFrom(
    name: string,
    deadline: number,
    context: OperationContext,
  ): Promise<SqsQueue | undefined> {
    const known = this.#sqs.directory.known(name);
    if (known !== undefined || !this.#createQueues)
      return known ?? this.#sqs.directory.resolve(name, context);
    let found: SqsQueue | undefined;
    const exists = async () => {
      try {
        found = await this.#sqs.directory.resolve(name, context);
        return true;
      } catch (error) {
        if (QueueError.is(error, "QueueNotFound")) return false;
        throw error;
      }
    };
    return (await awaitQueue(exists, this.#sqs.clock, deadline, context.signal)) ? found : undefined;
  }

  /** The queue a send goes to, made first with `createQueues`. */
  async #resolve(name: string, context: OperationContext): Promise<SqsQueue> {
    try {
      return await this.#sqs.directory.resolve(name, context);
    } catch (error) {
      if (!this.#createQueues || !QueueError.is(error, "QueueNotFound")) throw error;
      await this.admin.createQueue(name).catch((created: unknown) => {
        if (!QueueError.is(created, "QueueAlreadyExists")) throw created;
      });
      return this.#sqs.directory.resolve(name, context);
    }
  }

  // A queue that is gone may come back under the same name: its URL is looked up again next time.
  #failed(queue: SqsQueue, error: unknown): unknown {
    if (QueueError.is(error, "QueueNotFound")) this.#sqs.directory.forget(queue.name);
    return error;
  }
}
