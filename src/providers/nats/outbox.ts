import { PubHeaders } from "@nats-io/jetstream";
import type { MsgHdrs } from "@nats-io/transport-node";
import { QueueError } from "../../core/errors.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import { pubAck } from "./api-answers.js";
import type { NatsLink } from "./connection.js";
import { type MessageMeta, metaHeaders } from "./message-mapping.js";
import { queueNames } from "./names.js";

/** The subject a message of `record` goes to: its session's on a FIFO queue, else the ready subject. */
function subjectFor(prefix: string, record: QueueRecord, meta: MessageMeta): string {
  const names = queueNames(prefix, record.name);
  if ((meta.visibleAt ?? 0) > 0) return names.delayed;
  if (record.fifo && meta.sessionId !== undefined) return names.session(meta.sessionId);
  return names.ready;
}

/**
 * Publishes one message to the stream of `record` and resolves once JetStream stored it (its
 * PubAck came back): a resolved publish is on the broker, and one that failed says so.
 */
export async function publish(
  link: NatsLink,
  prefix: string,
  record: QueueRecord,
  meta: MessageMeta,
  body: Uint8Array,
  what: string,
  deduplicationId?: string,
): Promise<{ duplicate: boolean; sequence: number }> {
  if (record.fifo && meta.sessionId === undefined && (meta.visibleAt ?? 0) === 0)
    throw new QueueError("Validation", `queue ${record.name} requires a session id on every message`);
  const headers: MsgHdrs = metaHeaders(meta, deduplicationId);
  headers.set(PubHeaders.ExpectedStreamHdr, queueNames(prefix, record.name).stream);
  return link.ask(what, subjectFor(prefix, record, meta), body, pubAck, headers);
}
