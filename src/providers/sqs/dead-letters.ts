import { QueueError } from "../../core/errors.js";
import type { OperationContext, OutgoingMessage } from "../../core/provider.js";
import type { ReceiptHandle } from "../../core/receipt-handle.js";
import { DEAD_LETTER_ATTRIBUTES } from "../../rules/dead-letters.js";
import type { DecodedMessage } from "./message-mapping.js";
import { queueNameOfArn, queueNameOfUrl, type SqsQueue } from "./queue-urls.js";
import { parseReceipt, receiptQueueSettings } from "./receipts.js";
import { receiveBatch } from "./receive-batch.js";
import { sendBatch } from "./send-batch.js";
import type { SqsContext } from "./sqs-context.js";
import { changeVisibility, changeVisibilityOfAll, visibilitySeconds } from "./visibility.js";

/**
 * A received message as a new message for another queue: same body, id, correlation id, content
 * type and session, the given attributes. A message without a session joins one named after its
 * source queue when the destination is FIFO (as the engine does).
 */
function copyOf(
  message: DecodedMessage,
  source: string,
  destination: SqsQueue,
  attributes: Record<string, string>,
  deduplicationId: string,
): OutgoingMessage {
  const { delivery } = message;
  const sessionId = message.groupId ?? delivery.sessionId;
  return {
    body: delivery.body,
    attributes,
    sessionId: sessionId ?? (destination.fifo ? source : undefined),
    correlationId: delivery.correlationId,
    messageId: delivery.messageId,
    deduplicationId,
    contentType: delivery.contentType,
    timeToLiveMs: undefined,
    // An explicit 0: a copy is not held back by its destination's delay (SQS keeps a FIFO queue's anyway).
    delayMs: 0,
  };
}

/**
 * Dead-letters a locked message without ever losing it: it checks the lock and extends it, sends
 * a copy with the reason attributes to the queue's dead-letter queue (its `RedrivePolicy`), and
 * only then deletes the original. Without a dead-letter queue it fails with `Unsupported` and
 * the message stays locked. If the delete fails after the copy was sent, the message exists twice
 * (at least once, never lost).
 */
export async function deadLetter(
  sqs: SqsContext,
  receipt: ReceiptHandle,
  reason: string,
  description: string | undefined,
  context: OperationContext,
): Promise<void> {
  const { url, handle } = parseReceipt(receipt);
  sqs.received.assertHolds(handle);
  // Read now: whether the queue still exists and still has a dead-letter queue decides what happens.
  const { queue, settings } = await receiptQueueSettings(sqs, url, context, true);
  if (settings.redrive === null)
    throw new QueueError(
      "Unsupported",
      `queue ${queue.name} has no dead-letter queue (no RedrivePolicy); the message stays where it is`,
    );
  const held = sqs.received.get(handle);
  if (held === undefined) {
    // Proves the receipt still holds its lock, leaving the lock's end where it was.
    const left = Math.max(1, visibilitySeconds(receipt.expiresAtMs - sqs.clock.now()));
    await changeVisibility(sqs.http, url, handle, left, context);
    throw new QueueError(
      "Unsupported",
      "SQS cannot read a locked message by its receipt and this client did not receive it: dead-letter it from the client that received it (the message stays locked until its lock ends)",
    );
  }
  // SQS would still take the receipt (a visibility change succeeds, a delete deletes), but the
  // message may be another receiver's by now: copying it to the dead-letter queue would duplicate it.
  if (held.lockedUntilMs <= sqs.clock.now())
    throw new QueueError(
      "InvalidReceipt",
      "this receipt's lock has ended: receive the message again to dead-letter it",
    );
  await changeVisibility(sqs.http, url, handle, visibilitySeconds(settings.lockDurationMs), context);
  const target = await sqs.directory.resolve(settings.redrive.deadLetterQueue, context);
  const attributes: Record<string, string> = {
    ...held.message.delivery.attributes,
    [DEAD_LETTER_ATTRIBUTES.reason]: reason,
    [DEAD_LETTER_ATTRIBUTES.sourceQueue]: queue.name,
  };
  if (description !== undefined) attributes[DEAD_LETTER_ATTRIBUTES.description] = description;
  else delete attributes[DEAD_LETTER_ATTRIBUTES.description];
  const copy = copyOf(held.message, queue.name, target, attributes, `dl-${held.message.sqsMessageId}`);
  const [sent] = await sendBatch(sqs.http, target, [copy], context);
  if (sent !== undefined && !sent.ok) throw sent.error;
  await sqs.deletes.delete(url, handle, context);
  sqs.received.forget(handle);
}

function withoutDeadLetterAttributes(attributes: Readonly<Record<string, string>>): Record<string, string> {
  const kept = { ...attributes };
  delete kept[DEAD_LETTER_ATTRIBUTES.reason];
  delete kept[DEAD_LETTER_ATTRIBUTES.description];
  delete kept[DEAD_LETTER_ATTRIBUTES.sourceQueue];
  return kept;
}

/**
 * Moves the visible messages of a dead-letter queue back: each to `target`, or to the queue it
 * came from (its `DeadLetterSourceQueue` attribute, SQS's `DeadLetterQueueSourceArn`, or the one
 * queue whose redrive policy names this one). Each is sent before it is deleted, without its
 * dead-letter attributes, as a new message whose delivery count starts over. Messages with
 * nowhere to go stay, visible again at the end. Resolves how many moved.
 */
export async function redrive(
  sqs: SqsContext,
  deadLetterQueue: string,
  target: string | undefined,
  context: OperationContext,
): Promise<number> {
  const source = await sqs.directory.resolve(deadLetterQueue, context);
  const fixed = target === undefined ? undefined : await sqs.directory.resolve(target, context);
  let onlySource: Promise<string | undefined> | undefined;
  const soleSourceQueue = () => (onlySource ??= soleSource(sqs, source, context));
  const stuck: string[] = [];
  let moved = 0;
  try {
    for (;;) {
      const batch = await receiveBatch(sqs, source, 10, 0, context);
      if (batch.length === 0) break;
      const byDestination = new Map<string, DecodedMessage[]>();
      for (const message of batch) {
        const name =
          fixed?.name ??
          message.delivery.attributes[DEAD_LETTER_ATTRIBUTES.sourceQueue] ??
          (message.sourceQueueArn === undefined ? undefined : queueNameOfArn(message.sourceQueueArn)) ??
          (await soleSourceQueue());
        if (name === undefined || name === source.name) stuck.push(message.receiptHandle);
        else byDestination.set(name, [...(byDestination.get(name) ?? []), message]);
      }
      for (const [name, messages] of byDestination)
        moved += await moveBack(sqs, source, name, messages, stuck, context);
    }
  } finally {
    for (const handle of stuck) sqs.received.forget(handle);
    if (stuck.length > 0) await changeVisibilityOfAll(sqs.http, source.url, stuck, 0, context);
  }
  return moved;
}

async function moveBack(
  sqs: SqsContext,
  source: SqsQueue,
  name: string,
  messages: readonly DecodedMessage[],
  stuck: string[],
  context: OperationContext,
): Promise<number> {
  let destination: SqsQueue;
  try {
    destination = await sqs.directory.resolve(name, context);
  } catch (error) {
    if (!QueueError.is(error, "QueueNotFound") && !QueueError.is(error, "Validation")) throw error;
    for (const message of messages) stuck.push(message.receiptHandle);
    return 0;
  }
  const copies = messages.map((message) =>
    copyOf(
      message,
      source.name,
      destination,
      withoutDeadLetterAttributes(message.delivery.attributes),
      `rd-${message.sqsMessageId}`,
    ),
  );
  const results = await sendBatch(sqs.http, destination, copies, context);
  const deletes: Promise<void>[] = [];
  results.forEach((result, index) => {
    const handle = messages[index]!.receiptHandle;
    if (!result.ok) {
      stuck.push(handle);
      return;
    }
    sqs.received.forget(handle);
    deletes.push(sqs.deletes.delete(source.url, handle, context));
  });
  await Promise.all(deletes);
  return deletes.length;
}

async function soleSource(
  sqs: SqsContext,
  deadLetterQueue: SqsQueue,
  context: OperationContext,
): Promise<string | undefined> {
  const { queueUrls = [] } = await sqs.http.call(
    "ListDeadLetterSourceQueues",
    { QueueUrl: deadLetterQueue.url },
    context,
  );
  return queueUrls.length === 1 ? queueNameOfUrl(queueUrls[0]!) : undefined;
}
