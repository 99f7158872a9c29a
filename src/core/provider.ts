import type { QueueAdmin } from "./admin.js";
import type { Capabilities, ProviderType } from "./capabilities.js";
import type { BatchEntryResult } from "./errors.js";
import type { ReceivedMessage } from "./message.js";
import type { ReceiptHandle } from "./receipt-handle.js";
import type { TopicAdmin } from "./topics.js";

/** A message checked by the standard client and ready for a provider: the body is bytes it owns. */
export interface OutgoingMessage {
  readonly body: Uint8Array;
  readonly attributes: Readonly<Record<string, string>> | undefined;
  readonly sessionId: string | undefined;
  readonly correlationId: string | undefined;
  readonly messageId: string | undefined;
  readonly deduplicationId: string | undefined;
  readonly contentType: string | undefined;
  readonly timeToLiveMs: number | undefined;
  readonly delayMs: number | undefined;
}

/**
 * How telemetry names a provider: all a provider says about tracing, which the standard client
 * and the consumers do for every provider alike.
 */
export interface ProviderTelemetry {
  /** OpenTelemetry's `messaging.system`: `aws_sqs`, `servicebus`, `postgresql`, `rabbitmq`... */
  readonly system: string;
  /** `server.address` of a network provider. */
  readonly serverAddress?: string | undefined;
  /** `server.port` of a network provider. */
  readonly serverPort?: number | undefined;
  /**
   * The most attributes a message may carry for every reader to see them as they are (SQS: 10);
   * the trace context is left out of a message it would take past this.
   */
  readonly maxAttributes?: number | undefined;
}

/** What every provider call receives besides its arguments. */
export interface OperationContext {
  /** Aborted when the client closes: waits end at once and network calls are cancelled. */
  readonly signal: AbortSignal;
  /** The most the call may take (receive waits excluded); a provider sets its own I/O timeouts from it. */
  readonly timeoutMs: number;
}

/**
 * The port a queue technology implements. The standard client has already validated every
 * argument, split batches to `capabilities.maxBatchSize` and will retry transient failures;
 * a provider does one attempt of one operation and reports failures as `QueueError`s.
 */
export interface QueueProvider {
  readonly providerType: ProviderType;
  readonly capabilities: Capabilities;
  /** Queue administration as this provider understands it. */
  readonly admin: QueueAdmin;
  /**
   * True when every call ends on its own within `context.timeoutMs` plus its wait (local stores,
   * or network clients with their own I/O timeouts); otherwise the standard client races each
   * call against that deadline.
   */
  readonly enforcesTimeouts?: boolean;
  /** Topics, subscriptions and rules, where `capabilities.topics` is true. */
  readonly topics?: TopicProvider;
  /** How traces and metrics name this provider; absent, `messaging.system` is the provider type and no server is named. */
  readonly telemetry?: ProviderTelemetry;

  /** Sends up to `maxBatchSize` messages; resolves one result per message, in order. Rejects only when none was sent. */
  sendMessages(
    queue: string,
    messages: readonly OutgoingMessage[],
    context: OperationContext,
  ): Promise<BatchEntryResult[]>;

  /** Receives up to `maxMessages`, waiting up to `waitMs` for the first; resolves `[]` when none came or the signal aborted. */
  receiveMessages(
    queue: string,
    maxMessages: number,
    waitMs: number,
    context: OperationContext,
  ): Promise<ReceivedMessage[]>;

  /** Removes a locked message for good; `InvalidReceipt` when the lock is gone. */
  completeMessage(receipt: ReceiptHandle, context: OperationContext): Promise<void>;

  /** Releases a lock so the message is delivered again (after `delayMs`); `InvalidReceipt` when the lock is gone. */
  abandonMessage(receipt: ReceiptHandle, delayMs: number, context: OperationContext): Promise<void>;

  /** Moves a locked message to the dead-letter queue with a reason; `InvalidReceipt` when the lock is gone. */
  deadLetterMessage(
    receipt: ReceiptHandle,
    reason: string,
    description: string | undefined,
    context: OperationContext,
  ): Promise<void>;

  /** Extends a message lock by the queue's lock duration from now; resolves the new expiry. */
  renewMessageLock(receipt: ReceiptHandle, context: OperationContext): Promise<Date>;

  /** Locks a session (the given one, or the next with messages, waiting up to `waitMs`). */
  acceptSession(
    queue: string,
    sessionId: string | undefined,
    waitMs: number,
    context: OperationContext,
  ): Promise<SessionProvider>;

  /** Releases everything the provider holds; waiting receives resolve empty. */
  close(): Promise<void>;
}

/**
 * The port of a provider with topics. A subscription is received from, settled and administered
 * as the queue its path names, through the rest of the provider.
 */
export interface TopicProvider extends TopicAdmin {
  /**
   * Publishes up to `maxBatchSize` messages: each is copied to every subscription a rule of which
   * matches it. Resolves one result per message, in order; rejects only when none was published.
   */
  publishMessages(
    topic: string,
    messages: readonly OutgoingMessage[],
    context: OperationContext,
  ): Promise<BatchEntryResult[]>;
}

/** The port for one locked session, returned by {@link QueueProvider.acceptSession}. */
export interface SessionProvider {
  readonly sessionId: string;
  /** When the session lock ends unless renewed. */
  readonly sessionExpiresAt: Date;

  /** Receives the session's next messages in order, waiting up to `waitMs`; `SessionLockLost` when the lock is gone. */
  receiveMessages(maxMessages: number, waitMs: number, context: OperationContext): Promise<ReceivedMessage[]>;
  /** Removes a message of this session for good. */
  completeMessage(receipt: ReceiptHandle, context: OperationContext): Promise<void>;
  /** Puts a message back at the head of the session. */
  abandonMessage(receipt: ReceiptHandle, context: OperationContext): Promise<void>;
  /** Moves a message of this session to the dead-letter queue. */
  deadLetterMessage(
    receipt: ReceiptHandle,
    reason: string,
    description: string | undefined,
    context: OperationContext,
  ): Promise<void>;
  /** Extends the session lock from now; resolves the new expiry. */
  renewSessionLock(context: OperationContext): Promise<Date>;
  /** The state stored with the session, or `null`. */
  getSessionState(context: OperationContext): Promise<Uint8Array | null>;
  /** Stores (or with `null` clears) the session's state. */
  setSessionState(state: Uint8Array | null, context: OperationContext): Promise<void>;
  /** Releases the session lock; unsettled messages become available again. */
  closeSession(context: OperationContext): Promise<void>;
}
