import type { OutgoingMessage } from "../../core/provider.js";
import type { FilterableMessage } from "./filter-types.js";

/** What a filter looks at of a message about to be published: its body, attributes and system properties. */
export function filterableOf(message: OutgoingMessage): FilterableMessage {
  return {
    body: message.body,
    attributes: message.attributes ?? {},
    ...(message.messageId === undefined ? {} : { messageId: message.messageId }),
    ...(message.correlationId === undefined ? {} : { correlationId: message.correlationId }),
    ...(message.contentType === undefined ? {} : { contentType: message.contentType }),
    ...(message.sessionId === undefined ? {} : { sessionId: message.sessionId }),
  };
}
