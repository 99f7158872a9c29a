import type { QueueAdmin } from "./admin.js";
import type { Capabilities, ProviderType } from "./capabilities.js";
import type { BatchHandler, Consumer, MessageHandler } from "./consumer/consumer.js";
import type { ConsumeBatchesOptions, ConsumeOptions, ConsumeSessionsOptions } from "./consumer/options.js";
import type { MessageInput, ReceivedMessage } from "./message.js";
import type { ReceiptHandle } from "./receipt-handle.js";
import type { SessionClient, WaitOptions } from "./session-client.js";
import type { AnySchema, SchemaOutput, StandardSchemaV1 } from "./standard-schema.js";
import type { TopicAdmin } from "./topics.js";

export type { SessionClient, WaitOptions } from "./session-client.js";

/** Administration of queues and, where the provider has them, of topics, subscriptions and rules. */
export type ClientAdmin = QueueAdmin & TopicAdmin;

/** Counters of what a client has done since it was created. */
export interface ClientMetrics {
  sent: number;
  /** Messages published to topics. */
  published: number;
  received: number;
  completed: number;
  abandoned: number;
  deadLettered: number;
  renewed: number;
  /** Attempts repeated after a transient error. */
  retries: number;
  /** Calls that failed, by error code. */
  errors: Record<string, number>;
}

/** What an application uses to send and receive, the same on every provider. */
export interface QueueClient {
  /** Sends one message; resolves its id. */
  sendMessage(queue: string, message: MessageInput): Promise<string>;
  /** Sends many messages, split to the provider's batch limit; resolves their ids in order. */
  sendMessages(queue: string, messages: readonly MessageInput[]): Promise<string[]>;
  /** Publishes one message to a topic, copied to every subscription that matches it; resolves its id. */
  publishMessage(topic: string, message: MessageInput): Promise<string>;
  /** Publishes many messages to a topic, split to the provider's batch limit; resolves their ids in order. */
  publishMessages(topic: string, messages: readonly MessageInput[]): Promise<string[]>;
  /** Receives one message, waiting up to `timeoutMs` (default 0) for one; `null` when none came. */
  receiveMessage(queue: string, timeoutMs?: number, options?: WaitOptions): Promise<ReceivedMessage | null>;
  /** Receives up to `maxMessages`, waiting up to `timeoutMs` for the first; `[]` when none came. */
  receiveMessages(
    queue: string,
    maxMessages: number,
    timeoutMs?: number,
    options?: WaitOptions,
  ): Promise<ReceivedMessage[]>;
  /** Removes a received message for good. */
  completeMessage(receipt: ReceiptHandle | string): Promise<void>;
  /** Gives a received message back, to be delivered again now or after `delayMs`. */
  abandonMessage(receipt: ReceiptHandle | string, options?: { delayMs?: number }): Promise<void>;
  /** Moves a received message to its queue's dead-letter queue, with why. */
  deadLetterMessage(receipt: ReceiptHandle | string, reason: string, description?: string): Promise<void>;
  /** Extends a message's lock from now by the queue's lock duration; resolves the new expiry. */
  renewMessageLock(receipt: ReceiptHandle | string): Promise<Date>;
  /** Locks a session: the one named, or the next that has messages (waiting up to `timeoutMs`). */
  acceptSession(
    queue: string,
    sessionId?: string,
    timeoutMs?: number,
    options?: WaitOptions,
  ): Promise<SessionClient>;
  /**
   * Runs `handler` on every message of `queue` until stopped: up to `concurrency` at once, locks
   * renewed while it runs, completed when it resolves, abandoned with backoff when it throws.
   */
  consume<Schema extends StandardSchemaV1 = AnySchema>(
    queue: string,
    handler: MessageHandler<SchemaOutput<Schema>>,
    options?: ConsumeOptions<Schema>,
  ): Consumer;
  /** Runs `handler` on batches of up to `maxBatchSize` messages of `queue` until stopped. */
  consumeBatches<Schema extends StandardSchemaV1 = AnySchema>(
    queue: string,
    handler: BatchHandler<SchemaOutput<Schema>>,
    options?: ConsumeBatchesOptions<Schema>,
  ): Consumer;
  /** Runs `handler` on the sessions of `queue`, up to `maxConcurrentSessions` at once, each in order, one message at a time. */
  consumeSessions<Schema extends StandardSchemaV1 = AnySchema>(
    queue: string,
    handler: MessageHandler<SchemaOutput<Schema>>,
    options?: ConsumeSessionsOptions<Schema>,
  ): Consumer;
  readonly providerType: ProviderType;
  readonly capabilities: Capabilities;
  /** Creating, inspecting and emptying queues; topics, subscriptions and rules where the provider has them. */
  readonly admin: ClientAdmin;
  /** What this client has done so far. */
  readonly metrics: Readonly<ClientMetrics>;
  /** True when the provider supports sessions, natively or emulated. */
  supportsSessions(): boolean;
  /** True when the provider sends and receives in batches. */
  supportsBatching(): boolean;
  /** Stops its consumers, ends waiting receives (they resolve empty), releases the provider; later calls fail with `ClientClosed`. */
  close(): Promise<void>;
}
