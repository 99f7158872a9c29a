import type { Attributes, Span } from "@opentelemetry/api";
import type { ReceivedMessage } from "../message.js";
import type { OutgoingMessage } from "../provider.js";
import { ATTRIBUTES } from "./attribute-names.js";

/** Sets on `span` what it may say of one message about to be sent: its size, its own id and correlation id, never its body. */
export function describeOutgoing(span: Span, message: OutgoingMessage): void {
  const attributes: Attributes = { [ATTRIBUTES.bodySize]: message.body.byteLength };
  if (message.messageId !== undefined) attributes[ATTRIBUTES.messageId] = message.messageId;
  if (message.correlationId !== undefined) attributes[ATTRIBUTES.conversationId] = message.correlationId;
  span.setAttributes(attributes);
}

/** Sets on `span` what it may say of one received message: its id, size, correlation id and delivery count. */
export function describeReceived(span: Span, message: ReceivedMessage, deliveryCountName: string): void {
  const attributes: Attributes = {
    [ATTRIBUTES.messageId]: message.messageId,
    [ATTRIBUTES.bodySize]: message.body.byteLength,
    [deliveryCountName]: message.deliveryCount,
  };
  if (message.correlationId !== undefined) attributes[ATTRIBUTES.conversationId] = message.correlationId;
  span.setAttributes(attributes);
}
