// The shipped providers register themselves here, so every client this package creates can use them.
import "./providers/built-in.js";

export type { AwsCredentials } from "./aws/sigv4/credentials.js";
export type {
  PeekedMessage,
  PeekedState,
  QueueAdmin,
  QueueInfo,
  QueueOptions,
  QueueStats,
} from "./core/admin.js";
export type { Capabilities, ProviderType, SessionSupport } from "./core/capabilities.js";
export type { Clock, TimerHandle } from "./core/clock.js";
export { sleep, systemClock, VirtualClock } from "./core/clock.js";
export type { CustomProviderConfig, ProviderConfig, QueueConfig } from "./core/config.js";
export type {
  BatchContext,
  BatchHandler,
  Consumer,
  ConsumerEvents,
  ConsumerMetrics,
  MessageContext,
  MessageHandler,
  StopOptions,
} from "./core/consumer/consumer.js";
export { DeadLetterError } from "./core/consumer/dead-letter-error.js";
export type {
  ConsumeBatchesOptions,
  ConsumeOptions,
  ConsumeSessionsOptions,
  RateLimit,
  RetryDelays,
} from "./core/consumer/options.js";
export type { BatchEntryResult, QueueErrorCode, QueueErrorOptions } from "./core/errors.js";
export { QUEUE_ERROR_CODES, QueueError } from "./core/errors.js";
export { createClient, QueueClientFactory } from "./core/factory.js";
export type { Message, MessageBody, MessageInput, ReceivedMessage } from "./core/message.js";
export type {
  OperationContext,
  OutgoingMessage,
  ProviderTelemetry,
  QueueProvider,
  SessionProvider,
  TopicProvider,
} from "./core/provider.js";
export type { ProviderFactory } from "./core/provider-registry.js";
export type {
  ClientAdmin,
  ClientMetrics,
  QueueClient,
  SessionClient,
  WaitOptions,
} from "./core/queue-client.js";
export { parseQueueUrl } from "./core/queue-url.js";
export { ReceiptHandle } from "./core/receipt-handle.js";
export type { RetryListener, RetryPolicy } from "./core/retry.js";
export { backoffDelay, DEFAULT_RETRY_POLICY } from "./core/retry.js";
export type { StandardClientOptions } from "./core/standard-queue-client.js";
export { StandardQueueClient } from "./core/standard-queue-client.js";
export type { SchemaOutput, StandardIssue, StandardSchemaV1 } from "./core/standard-schema.js";
export { StandardSessionClient } from "./core/standard-session-client.js";
export type {
  MeterProviderLike,
  TelemetryOption,
  TelemetryProviders,
  TracerProviderLike,
} from "./core/telemetry/telemetry-option.js";
export type {
  CorrelationFilter,
  FilterKind,
  SubscriptionFilter,
  SubscriptionInfo,
  SubscriptionOptions,
  SubscriptionRule,
  TopicAdmin,
  TopicInfo,
  TopicOptions,
  TopicStats,
} from "./core/topics.js";
export { parseSubscriptionPath, subscriptionPath } from "./core/topics.js";
export { PROVIDER_TYPES } from "./providers/built-in.js";
export type { MemoryProviderConfig } from "./providers/memory/config.js";
export type { NatsProviderConfig, NatsTlsConfig } from "./providers/nats/config.js";
export type { PostgresProviderConfig } from "./providers/postgres/config.js";
export type { RabbitMqProviderConfig } from "./providers/rabbitmq/config.js";
export type { ServiceBusProviderConfig } from "./providers/servicebus/config.js";
export type { SqliteProviderConfig } from "./providers/sqlite/config.js";
export type { SqsProviderConfig } from "./providers/sqs/config.js";
export { DEAD_LETTER_ATTRIBUTES, DEAD_LETTER_REASONS, deadLetterQueueName } from "./rules/dead-letters.js";
export type { EngineProviderOptions } from "./rules/queue-defaults.js";
