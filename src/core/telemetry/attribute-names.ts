/** The OpenTelemetry messaging attribute names the spans and instruments use (semantic conventions 1.3x). */
export const ATTRIBUTES = {
  system: "messaging.system",
  destination: "messaging.destination.name",
  operationType: "messaging.operation.type",
  operationName: "messaging.operation.name",
  messageId: "messaging.message.id",
  conversationId: "messaging.message.conversation_id",
  bodySize: "messaging.message.body.size",
  batchCount: "messaging.batch.message_count",
  deliveryCount: "messaging.message.delivery_count",
  serviceBusDeliveryCount: "messaging.servicebus.message.delivery_count",
  serverAddress: "server.address",
  serverPort: "server.port",
  errorType: "error.type",
} as const;

/** `messaging.operation.type` values. */
export const OPERATION_TYPES = ["send", "create", "receive", "process", "settle"] as const;

/** A `messaging.operation.type`. */
export type OperationType = (typeof OPERATION_TYPES)[number];

/** `messaging.operation.name` of a settlement, by the client method that made it. */
export const SETTLE_NAMES = {
  completeMessage: "complete",
  abandonMessage: "abandon",
  deadLetterMessage: "dead_letter",
  renewMessageLock: "renew",
} as const;

/** A settlement's `messaging.operation.name`. */
export type SettleName = (typeof SETTLE_NAMES)[keyof typeof SETTLE_NAMES];

/** Why a message was sent without its trace context: the span event's name and its attribute. */
export const CONTEXT_LEFT_OUT = {
  event: "queue_runtime.context_not_injected",
  reason: "queue_runtime.reason",
} as const;
