export type {
  SchemaOutput,
  StandardIssue,
  StandardResult,
  StandardSchemaV1,
} from "../core/standard-schema.js";
export type { PgPool, PgPoolClient, PgQuery, PgResult } from "../postgres/pg-pool.js";
export type { DeliveryItem } from "./deliveries.js";
export { Deliveries, LABEL_SEPARATOR } from "./deliveries.js";
export type { EventDefinition, EventOptions, EventValue } from "./events.js";
export { defineEvent } from "./events.js";
export type { MessageOutcome } from "./intake.js";
export type {
  DeliveryContext,
  QueueSource,
  ReceiverOptions,
  SubscribedEvents,
  Subscriber,
} from "./options.js";
export { defineSubscriber } from "./options.js";
export type { PostgresReceivingStoreOptions } from "./postgres/postgres-receiving-store.js";
export { postgresStore } from "./postgres/postgres-receiving-store.js";
export type { ParkReason, Problem } from "./problems.js";
export { PARK_REASONS } from "./problems.js";
export type {
  CloudflareMessageBatch,
  CloudflareQueueMessage,
  PushAdapterOptions,
} from "./push/cloudflare-queues.js";
export { cloudflareQueueConsumer } from "./push/cloudflare-queues.js";
export type { SqsBatchResponse, SqsEvent, SqsEventRecord } from "./push/lambda-sqs.js";
export { sqsEventHandler } from "./push/lambda-sqs.js";
export { MAX_EVENT_BYTES } from "./reading.js";
export type { BatchOptions, PushedMessage, ReceiverMetrics, TickOptions } from "./receiver.js";
export { RETENTION_MS, Receiver } from "./receiver.js";
export { DEFAULT_SUBSCRIBER_RETRY, MAX_TICK_INTERVAL_MS } from "./receiver-config.js";
export type { SqliteReceivingStoreOptions } from "./sqlite/sqlite-receiving-store.js";
export { sqliteStore } from "./sqlite/sqlite-receiving-store.js";
export type { ReceivingStore } from "./stores/receiving-store.js";
export type { ReceivingStoreOptions } from "./stores/store-options.js";
export { DEFAULT_TABLE_PREFIX } from "./stores/store-options.js";
