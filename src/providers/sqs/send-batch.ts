import type { SendMessageBatchRequestEntry } from "../../aws/json-protocol/sqs-types.js";
import { MAX_BATCH_ENTRIES } from "../../aws/json-protocol/sqs-validation.js";
import { type BatchEntryResult, QueueError, toQueueError } from "../../core/errors.js";
import type { OperationContext, OutgoingMessage } from "../../core/provider.js";
import { entryError, missingEntryError } from "./batch-results.js";
import { deduplicationIdOf, delaySeconds, encodeMessage, SQS_MAX_MESSAGE_BYTES } from "./message-mapping.js";
import type { SqsQueue } from "./queue-urls.js";
import type { SqsHttp } from "./sqs-http.js";

interface PreparedEntry {
  readonly index: number;
  readonly entry: SendMessageBatchRequestEntry;
  readonly bytes: number;
  /** The id the sender chose, reported instead of SQS's. */
  readonly messageId: string | undefined;
}

/** One message as a `SendMessageBatch` entry; what SQS cannot do with it fails here, before anything is sent. */
function prepare(message: OutgoingMessage, queue: SqsQueue, index: number): PreparedEntry {
  if (message.timeToLiveMs !== undefined)
    throw new QueueError(
      "Unsupported",
      "SQS has no time to live per message; a queue's retention period (defaultTimeToLiveMs) applies to all its messages",
    );
  const delayMs = message.delayMs ?? 0;
  if (queue.fifo) {
    if (message.sessionId === undefined)
      throw new QueueError(
        "Validation",
        `queue ${queue.name} is a FIFO queue: every message needs a sessionId`,
      );
    if (delayMs > 0)
      throw new QueueError(
        "Unsupported",
        "SQS FIFO queues cannot delay one message; give the queue a defaultDelayMs instead",
      );
  }
  const encoded = encodeMessage(message, queue.fifo);
  if (encoded.bytes > SQS_MAX_MESSAGE_BYTES)
    throw new QueueError(
      "MessageTooLarge",
      `message is ${encoded.bytes} bytes as SQS counts it (body as sent, attribute names, types and values); the limit is ${SQS_MAX_MESSAGE_BYTES} bytes`,
    );
  const entry: SendMessageBatchRequestEntry = { Id: String(index), MessageBody: encoded.body };
  if (encoded.attributes !== undefined) entry.MessageAttributes = encoded.attributes;
  // An explicit 0 overrides the queue's delay, as on every provider; absent, the queue's applies.
  if (message.delayMs !== undefined && !queue.fifo) entry.DelaySeconds = delaySeconds(delayMs);
  if (queue.fifo) {
    entry.MessageGroupId = message.sessionId;
    entry.MessageDeduplicationId = deduplicationIdOf(message);
  }
  return { index, entry, bytes: encoded.bytes, messageId: message.messageId };
}

/** Runs of at most ten entries and at most SQS's request size each, in order. */
function runsOf(entries: readonly PreparedEntry[]): PreparedEntry[][] {
  const runs: PreparedEntry[][] = [];
  let run: PreparedEntry[] = [];
  let bytes = 0;
  for (const entry of entries) {
    if (run.length === MAX_BATCH_ENTRIES || (run.length > 0 && bytes + entry.bytes > SQS_MAX_MESSAGE_BYTES)) {
      runs.push(run);
      run = [];
      bytes = 0;
    }
    run.push(entry);
    bytes += entry.bytes;
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

async function sendRun(
  http: SqsHttp,
  queue: SqsQueue,
  run: readonly PreparedEntry[],
  results: BatchEntryResult[],
  context: OperationContext,
): Promise<void> {
  if (run.length === 1) {
    const { entry, index, messageId } = run[0]!;
    const { Id: _id, ...single } = entry;
    const sent = await http.call("SendMessage", { QueueUrl: queue.url, ...single }, context);
    results[index] = { ok: true, messageId: messageId ?? sent.MessageId ?? "" };
    return;
  }
  const { Successful = [], Failed = [] } = await http.call(
    "SendMessageBatch",
    { QueueUrl: queue.url, Entries: run.map((prepared) => prepared.entry) },
    context,
  );
  const byId = new Map(run.map((prepared) => [prepared.entry.Id, prepared]));
  for (const success of Successful) {
    const prepared = byId.get(success.Id);
    if (prepared !== undefined)
      results[prepared.index] = { ok: true, messageId: prepared.messageId ?? success.MessageId };
  }
  for (const failure of Failed) {
    const prepared = byId.get(failure.Id);
    if (prepared !== undefined) results[prepared.index] = { ok: false, error: entryError(failure) };
  }
  for (const prepared of run)
    results[prepared.index] ??= {
      ok: false,
      error: missingEntryError("SendMessageBatch", prepared.entry.Id),
    };
}

/**
 * Sends messages to a queue as few calls as SQS allows (ten entries and 1 MiB per call), and
 * resolves one result per message in order. Rejects only when the first call fails, before
 * anything was sent.
 */
export async function sendBatch(
  http: SqsHttp,
  queue: SqsQueue,
  messages: readonly OutgoingMessage[],
  context: OperationContext,
): Promise<BatchEntryResult[]> {
  const results = new Array<BatchEntryResult>(messages.length);
  const prepared: PreparedEntry[] = [];
  for (let index = 0; index < messages.length; index++) {
    try {
      prepared.push(prepare(messages[index]!, queue, index));
    } catch (error) {
      results[index] = { ok: false, error: toQueueError(error) };
    }
  }
  const runs = runsOf(prepared);
  for (let next = 0; next < runs.length; next++) {
    try {
      await sendRun(http, queue, runs[next]!, results, context);
    } catch (error) {
      if (next === 0) throw error;
      // Later runs wait for this one, so that a FIFO group's order survives a retry.
      const failed = toQueueError(error);
      for (const run of runs.slice(next))
        for (const entry of run) results[entry.index] = { ok: false, error: failed };
      break;
    }
  }
  return results;
}
