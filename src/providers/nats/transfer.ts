import type { QueueRecord } from "../../rules/queue-records.js";
import type { NatsLink } from "./connection.js";
import type { MessageMeta } from "./message-mapping.js";
import { publish } from "./outbox.js";

/**
 * Publishes a message of `from` to `to` as a fresh one (a dead letter, a redriven message): same
 * id, body and enqueue time, the given attributes, no time to live, no delay; on a FIFO queue a
 * message without a session joins one named after its source. Resolves once JetStream stored it,
 * so the caller may then remove the original.
 */
export async function transfer(
  link: NatsLink,
  prefix: string,
  from: QueueRecord,
  to: QueueRecord,
  meta: MessageMeta,
  body: Uint8Array,
  attributes: Record<string, string>,
): Promise<void> {
  const sessionId = to.fifo ? (meta.sessionId ?? from.name) : meta.sessionId;
  const moved: MessageMeta = {
    id: meta.id,
    attributes,
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(meta.correlationId === undefined ? {} : { correlationId: meta.correlationId }),
    ...(meta.contentType === undefined ? {} : { contentType: meta.contentType }),
    enqueuedAt: meta.enqueuedAt,
  };
  await publish(link, prefix, to, moved, body, `moving a message from ${from.name} to ${to.name}`);
}
