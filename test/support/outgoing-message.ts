import type { OutgoingMessage } from "../../src/core/provider.js";

/** An outgoing message as providers and the engine take it: every field unset but those given. */
export function outgoingMessage(
  body: string | Uint8Array,
  fields: Partial<Omit<OutgoingMessage, "body">> = {},
): OutgoingMessage {
  return {
    body: typeof body === "string" ? new TextEncoder().encode(body) : body,
    attributes: undefined,
    sessionId: undefined,
    correlationId: undefined,
    messageId: undefined,
    deduplicationId: undefined,
    contentType: undefined,
    timeToLiveMs: undefined,
    delayMs: undefined,
    ...fields,
  };
}
