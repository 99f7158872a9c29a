// The messages of sessions as stored on a queue's stream, apart from the session that holds them:
// receipt tokens, removal, dead-lettering, settling by a client that does not hold the session,
// and finding the sessions that have messages.
import { QueueError } from "../../core/errors.js";
import type { ReceiptHandle } from "../../core/receipt-handle.js";
import { DEAD_LETTER_ATTRIBUTES, DEAD_LETTER_REASONS } from "../../rules/dead-letters.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import { type MessageMeta, readMeta } from "./message-mapping.js";
import { untoken } from "./names.js";
import type { SessionDeps } from "./sessions.js";
import { storedMessage } from "./stored-message.js";
import { transfer } from "./transfer.js";

/** The kind mark of a receipt token for a session message. */
const SESSION_RECEIPT = "s";

/** The receipt token of a session message: `s<owner>|<stream sequence>|<delivery count>|<session id>`. */
export function sessionToken(owner: string, seq: number, count: number, sessionId: string): string {
  return `${SESSION_RECEIPT}${owner}|${seq}|${count}|${sessionId}`;
}

/** What a session receipt token names, or undefined for another kind. */
export function parseSessionToken(
  token: string,
): { owner: string; seq: number; count: number; sessionId: string } | undefined {
  if (!token.startsWith(SESSION_RECEIPT)) return undefined;
  const [owner, seqText, countText, ...rest] = token.slice(SESSION_RECEIPT.length).split("|");
  const seq = Number(seqText);
  const count = Number(countText);
  const sessionId = rest.join("|");
  if (owner === undefined || !Number.isSafeInteger(seq) || !Number.isSafeInteger(count) || sessionId === "")
    return undefined;
  return { owner, seq, count, sessionId };
}

/** Whether message `seq` of `record` is still on its stream. */
export async function isStored(deps: SessionDeps, record: QueueRecord, seq: number): Promise<boolean> {
  const { link, catalog } = deps;
  const stored = await link.call(`reading a message of ${record.name}`, () =>
    storedMessage(link.jsm, catalog.names(record.name).stream, seq),
  );
  return stored !== null && stored.seq === seq;
}

/** Deletes a session message from its stream; `InvalidReceipt` when it is gone already (settled elsewhere, purged). */
export async function removeMessage(deps: SessionDeps, record: QueueRecord, seq: number): Promise<void> {
  const { link, catalog } = deps;
  const removed = await link.call(`removing a message of ${record.name}`, () =>
    link.jsm.streams.deleteMessage(catalog.names(record.name).stream, seq, true).catch((error: unknown) => {
      if (/no message found|not found/i.test(String((error as Error).message))) return false;
      throw error;
    }),
  );
  if (!removed) throw new QueueError("InvalidReceipt", `this message of ${record.name} was settled already`);
}

/** Publishes the dead letter of a session message (PubAck awaited), then removes the original. */
export async function moveToDeadLetters(
  deps: SessionDeps,
  record: QueueRecord,
  seq: number,
  meta: MessageMeta,
  body: Uint8Array,
  reason: string,
  description: string | undefined,
): Promise<void> {
  const target = await deps.catalog.ensureDeadLetterQueue(record);
  if (target === undefined)
    throw new QueueError("Unsupported", `queue ${record.name} has no dead-letter queue`);
  const attributes: Record<string, string> = {
    ...meta.attributes,
    [DEAD_LETTER_ATTRIBUTES.reason]: reason,
    [DEAD_LETTER_ATTRIBUTES.sourceQueue]: record.name,
  };
  if (description !== undefined) attributes[DEAD_LETTER_ATTRIBUTES.description] = description;
  await transfer(deps.link, deps.prefix, record, target, meta, body, attributes);
  await removeMessage(deps, record, seq);
}

/** How a receipt of a session message is settled by a client that does not hold the session. */
export type ForeignSettle =
  | { readonly kind: "check" }
  | { readonly kind: "complete" }
  | { readonly kind: "abandon" }
  | { readonly kind: "deadLetter"; readonly reason: string; readonly description: string | undefined };

/**
 * Settles a session message by its receipt from a client that does not hold the session (it was
 * written down and handed over): the session's record must still name the receipt's holder with
 * its lock unexpired. A message given back is marked in the record, for the holder to let go.
 */
export async function settleForeign(
  deps: SessionDeps,
  receipt: ReceiptHandle,
  settle: ForeignSettle,
): Promise<void> {
  const token = parseSessionToken(receipt.token);
  if (token === undefined)
    throw new QueueError("InvalidReceipt", "this is not a receipt of a session message");
  const { link, catalog, locks, clock } = deps;
  const record = await catalog.find(receipt.queue);
  if (record === undefined) throw new QueueError("InvalidReceipt", `queue ${receipt.queue} no longer exists`);
  const stream = catalog.names(record.name).stream;
  const stored = await link.call(`reading a message of ${record.name}`, () =>
    storedMessage(link.jsm, stream, token.seq),
  );
  if (stored === null || stored.seq !== token.seq)
    throw new QueueError("InvalidReceipt", `the message of this receipt is no longer on ${record.name}`);
  const meta = readMeta(stored.header, `${record.name}:${stored.seq}`, clock.now());
  let count = 0;
  try {
    await locks.update(record.name, token.sessionId, token.owner, clock.now(), (current) => {
      count = current.deliveries[token.seq] ?? 0;
      // A receipt of an earlier delivery, or of one given back already, holds no lock.
      if (count !== token.count || (current.spent?.[token.seq] ?? 0) >= token.count)
        throw new QueueError("InvalidReceipt", `the lock on this message of ${record.name} has ended`);
      return settle.kind === "abandon"
        ? {
            ...current,
            released: [...(current.released ?? []), token.seq],
            spent: { ...current.spent, [token.seq]: token.count },
          }
        : current;
    });
  } catch (error) {
    if (QueueError.is(error, "SessionLockLost"))
      throw new QueueError("InvalidReceipt", `the lock on this message of ${record.name} has ended`, {
        cause: error,
      });
    throw error;
  }
  if (settle.kind === "check") return;
  if (settle.kind === "complete") return removeMessage(deps, record, token.seq);
  if (settle.kind === "deadLetter")
    return moveToDeadLetters(deps, record, token.seq, meta, stored.data, settle.reason, settle.description);
  const max = record.maxDeliveryCount;
  if (max !== null && count >= max && record.deadLetterQueue !== null)
    await moveToDeadLetters(
      deps,
      record,
      token.seq,
      meta,
      stored.data,
      DEAD_LETTER_REASONS.maxDeliveryCount,
      undefined,
    );
}

/**
 * The sessions of `record` that have messages, oldest first message first, by the stream's
 * per-subject counts (`subjects_filter`) and one direct get each.
 */
export async function sessionsWithMessages(deps: SessionDeps, record: QueueRecord): Promise<string[]> {
  const { link, catalog } = deps;
  const names = catalog.names(record.name);
  const info = await link.call(`looking for sessions of ${record.name}`, () =>
    link.jsm.streams.info(names.stream, { subjects_filter: names.sessions }),
  );
  const subjects = Object.entries(info.state.subjects ?? {}).filter(([, count]) => count > 0);
  const firsts = await Promise.all(
    subjects.map(async ([subject]) => {
      const first = await link.call(`looking for sessions of ${record.name}`, () =>
        link.jsm.direct.getMessage(names.stream, { seq: 0, next_by_subj: subject }),
      );
      return {
        id: untoken(subject.slice(subject.lastIndexOf(".") + 1)),
        seq: first?.seq ?? Number.MAX_SAFE_INTEGER,
      };
    }),
  );
  return firsts.sort((a, b) => a.seq - b.seq).map((first) => first.id);
}
