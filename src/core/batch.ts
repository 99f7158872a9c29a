import { type BatchEntryResult, QueueError } from "./errors.js";
import type { ReceivedMessage } from "./message.js";
import type { OutgoingMessage } from "./provider.js";

/** Splits `items` into runs of at most `size`. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = [];
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size));
  return chunks;
}

/**
 * Sends `items` in runs of at most `size`, one run after another so order is kept. A run that
 * fails as a whole before anything was sent rethrows its error; otherwise every entry's outcome
 * is collected and any failure becomes a `PartialBatchFailure` carrying all of them, in order.
 */
export async function sendInRuns<T>(
  items: readonly T[],
  size: number,
  sendRun: (run: readonly T[]) => Promise<BatchEntryResult[]>,
): Promise<string[]> {
  const results: BatchEntryResult[] = [];
  let anyFailed = false;
  for (const run of items.length <= size ? [items] : chunk(items, size)) {
    let outcome: BatchEntryResult[];
    try {
      outcome = await sendRun(run);
    } catch (thrown) {
      if (results.length === 0) throw thrown;
      const error = thrown instanceof QueueError ? thrown : new QueueError("Provider", String(thrown));
      for (let i = results.length; i < items.length; i++) results.push({ ok: false, error });
      anyFailed = true;
      break;
    }
    if (outcome.length !== run.length)
      throw new QueueError(
        "Provider",
        `the provider answered ${outcome.length} results for ${run.length} messages`,
      );
    for (const entry of outcome) {
      results.push(entry);
      if (!entry.ok) anyFailed = true;
    }
  }
  if (!anyFailed) return results.map((entry) => (entry as { messageId: string }).messageId);
  const sent = results.filter((entry) => entry.ok).length;
  const first = results.find((entry) => !entry.ok) as { error: QueueError };
  throw new QueueError(
    "PartialBatchFailure",
    `${sent} of ${items.length} messages were sent; the first failure: ${first.error.message}`,
    { results, cause: first.error },
  );
}

/**
 * Receives up to `maxMessages` in calls of at most `runSize`: only the first call waits, and it
 * stops as soon as a call comes back short.
 */
export async function receiveInRuns(
  maxMessages: number,
  runSize: number,
  waitMs: number,
  receiveRun: (max: number, waitMs: number) => Promise<ReceivedMessage[]>,
): Promise<ReceivedMessage[]> {
  const first = await receiveRun(Math.min(maxMessages, runSize), waitMs);
  if (first.length >= maxMessages || first.length < runSize) return first;
  const received = first;
  while (received.length < maxMessages) {
    const want = Math.min(maxMessages - received.length, runSize);
    const more = await receiveRun(want, 0);
    received.push(...more);
    if (more.length < want) break;
  }
  return received;
}

/** Sends again, as one smaller batch each time, the entries whose failure was transient. */
export async function retryFailedEntries(
  run: readonly OutgoingMessage[],
  results: BatchEntryResult[],
  send: (entries: readonly OutgoingMessage[]) => Promise<BatchEntryResult[]>,
): Promise<BatchEntryResult[]> {
  for (let round = 0; round < 2; round++) {
    if (results.every((result) => result.ok || !result.error.isTransient)) break;
    const again = results.flatMap((result, index) => (!result.ok && result.error.isTransient ? [index] : []));
    let retried: BatchEntryResult[];
    try {
      retried = await send(again.map((index) => run[index]!));
    } catch {
      break;
    }
    again.forEach((index, i) => {
      if (retried[i] !== undefined) results[index] = retried[i]!;
    });
  }
  return results;
}

/**
 * Sends a batch to a queue that requires sessions: each message without a session fails on its
 * own with `Validation` (even when all do: a batch answers per message on every provider), the
 * others go through `send`; the results are in the batch's order.
 */
export async function sendNamingSessions(
  queue: string,
  messages: readonly OutgoingMessage[],
  send: (withSession: readonly OutgoingMessage[]) => Promise<BatchEntryResult[]>,
): Promise<BatchEntryResult[]> {
  const error = new QueueError(
    "Validation",
    `queue ${queue} requires sessions: every message needs a sessionId`,
  );
  const withSession = messages.filter((message) => message.sessionId !== undefined);
  const sent = withSession.length === 0 ? [] : await send(withSession);
  let next = 0;
  return messages.map((message) => (message.sessionId === undefined ? { ok: false, error } : sent[next++]!));
}
