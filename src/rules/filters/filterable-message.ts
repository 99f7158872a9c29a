import type { OutgoingMessage } from "../../core/provider.js";
import type { FilterableMessage } from "./filter-types.js";

/** The system properties a protocol carries beyond an outgoing message's, where it has them. */
export interface ProtocolProperties {
  readonly subject?: string | undefined;
  readonly to?: string | undefined;
  readonly replyTo?: string | undefined;
}

/** What a filter looks at of a message about to be published: its body, attributes and system properties. */
export function filterableOf(message: OutgoingMessage & ProtocolProperties): FilterableMessage {
  return {
    body: message.body,
    attributes: message.attributes ?? {},
    ...(message.messageId === undefined ? {} : { messageId: message.messageId }),
    ...(message.correlationId === undefined ? {} : { correlationId: message.correlationId }),
    ...(message.contentType === undefined ? {} : { contentType: message.contentType }),
    ...(message.sessionId === undefined ? {} : { sessionId: message.sessionId }),
    ...(message.subject === undefined ? {} : { subject: message.subject }),
    ...(message.to === undefined ? {} : { to: message.to }),
    ...(message.replyTo === undefined ? {} : { replyTo: message.replyTo }),
  };
}
