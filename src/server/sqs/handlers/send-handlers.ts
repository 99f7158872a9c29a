import {
  type BatchResultErrorEntry,
  checkBatchEntries,
  type SendMessageBatchResultEntry,
  type SendMessageResult,
  sqsError,
} from "../../../aws/index.js";
import type { SendOutcome } from "../../../engine/delivery.js";
import type { QueueRecord } from "../../../rules/queue-records.js";
import { type PreparedSend, prepareSend, sequenceNumberOf } from "../message-codec.js";
import { SQS_MAX_MESSAGE_BYTES } from "../queue-attributes.js";
import type { Handlers } from "../sqs-service.js";

/** A failed batch entry as SQS reports it. */
export function failedEntry(id: string, error: unknown): BatchResultErrorEntry {
  const code = (error as { providerCode?: unknown }).providerCode;
  return {
    Id: id,
    SenderFault: true,
    Code: typeof code === "string" ? code : "InternalError",
    Message: error instanceof Error ? error.message : String(error),
  };
}

/**
 * A sent message's result, with `Id` for a batch entry. Every member is always set (undefined
 * when absent, which neither encoder writes), so the results of all messages share one shape.
 */
function sent(
  outcome: SendOutcome,
  prepared: PreparedSend,
  queue: QueueRecord,
  id?: string,
): SendMessageResult & { Id?: string } {
  if (!outcome.ok) throw outcome.error;
  return {
    Id: id,
    MessageId: outcome.messageId,
    MD5OfMessageBody: prepared.md5OfBody,
    MD5OfMessageAttributes: prepared.md5OfAttributes,
    MD5OfMessageSystemAttributes: prepared.md5OfSystemAttributes,
    SequenceNumber: queue.fifo ? sequenceNumberOf(outcome.seq) : undefined,
  };
}

/**
 * As SQS does, a FIFO batch with an entry that names no message group, or no deduplication id on
 * a queue without content-based deduplication, fails as a whole rather than entry by entry.
 */
function checkFifoBatch(
  entries: readonly { MessageGroupId?: string | undefined; MessageDeduplicationId?: string | undefined }[],
  queue: QueueRecord,
): void {
  if (entries.some((entry) => entry.MessageGroupId === undefined))
    throw sqsError("InvalidParameterValue", "The request must contain the parameter MessageGroupId.");
  if (
    queue.properties.ContentBasedDeduplication !== "true" &&
    entries.some((entry) => entry.MessageDeduplicationId === undefined)
  )
    throw sqsError(
      "InvalidParameterValue",
      "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly",
    );
}

/** SendMessage and SendMessageBatch. */
export const sendHandlers: Handlers = {
  async SendMessage(state, input, call) {
    const queue = state.queueOf(input.QueueUrl);
    const prepared = prepareSend(input, queue, call.senderId, false);
    const [outcome] = await state.writes.run(() => state.engine.send(queue.name, [prepared.message]));
    return sent(outcome!, prepared, queue);
  },

  async SendMessageBatch(state, input, call) {
    const queue = state.queueOf(input.QueueUrl);
    checkBatchEntries(input.Entries, "SendMessageBatchRequestEntry");
    let total = 0;
    for (const entry of input.Entries) total += Buffer.byteLength(entry.MessageBody);
    if (total > SQS_MAX_MESSAGE_BYTES)
      throw sqsError(
        "BatchRequestTooLong",
        `Batch requests cannot be longer than ${SQS_MAX_MESSAGE_BYTES} bytes. You have sent ${total} bytes.`,
      );
    if (queue.fifo) checkFifoBatch(input.Entries, queue);
    const failed: BatchResultErrorEntry[] = [];
    const accepted: { id: string; prepared: PreparedSend }[] = [];
    for (const entry of input.Entries) {
      try {
        accepted.push({ id: entry.Id, prepared: prepareSend(entry, queue, call.senderId, true) });
      } catch (error) {
        failed.push(failedEntry(entry.Id, error));
      }
    }
    const outcomes =
      accepted.length === 0
        ? []
        : await state.writes.run(() =>
            state.engine.send(
              queue.name,
              accepted.map((entry) => entry.prepared.message),
            ),
          );
    const successful: SendMessageBatchResultEntry[] = [];
    outcomes.forEach((outcome, index) => {
      const { id, prepared } = accepted[index]!;
      try {
        successful.push(sent(outcome, prepared, queue, id) as SendMessageBatchResultEntry);
      } catch (error) {
        failed.push(failedEntry(id, error));
      }
    });
    return { Successful: successful, Failed: failed };
  },
};
