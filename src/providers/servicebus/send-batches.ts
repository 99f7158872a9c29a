import type { ServiceBusSender } from "@azure/service-bus";
import { withOwnSignal } from "../../core/abort-watch.js";
import { type BatchEntryResult, QueueError } from "../../core/errors.js";
import type { OutgoingMessage } from "../../core/provider.js";
import type { Links } from "./links.js";
import { toServiceBusMessage } from "./message-mapping.js";

/**
 * Sends `messages` in as few SDK batches as the link's size limit allows, in order; resolves
 * one result per message. A message too large for a batch of its own fails alone
 * (`MessageTooLarge`); a batch the service refuses fails with the rest after it, and the call
 * rejects only when nothing was sent.
 */
export async function sendInBatches(
  sender: ServiceBusSender,
  messages: readonly OutgoingMessage[],
  nowMs: number,
  signal: AbortSignal,
  fail: (error: unknown) => QueueError,
): Promise<BatchEntryResult[]> {
  const outgoing = messages.map((message) => toServiceBusMessage(message, nowMs));
  const results: BatchEntryResult[] = [];
  const failRest = (error: QueueError): BatchEntryResult[] => {
    if (!results.some((result) => result.ok)) throw error;
    while (results.length < outgoing.length) results.push({ ok: false, error });
    return results;
  };
  let next = 0;
  while (next < outgoing.length) {
    let batch: Awaited<ReturnType<ServiceBusSender["createMessageBatch"]>>;
    try {
      batch = await sender.createMessageBatch({ abortSignal: signal });
    } catch (error) {
      return failRest(fail(error));
    }
    const first = next;
    while (next < outgoing.length && batch.tryAddMessage(outgoing[next]!)) next++;
    if (next === first) {
      const error = new QueueError(
        "MessageTooLarge",
        `message ${first} does not fit in one Service Bus message of at most ${batch.maxSizeInBytes} bytes`,
      );
      if (outgoing.length === 1) throw error;
      results.push({ ok: false, error });
      next++;
      continue;
    }
    try {
      await sender.sendMessages(batch, { abortSignal: signal });
    } catch (error) {
      return failRest(fail(error));
    }
    for (let index = first; index < next; index++)
      results.push({ ok: true, messageId: String(outgoing[index]!.messageId) });
  }
  return results;
}

/**
 * Sends through the entity's (a queue's or a topic's) sender in batches; a sender that failed
 * otherwise than by refusing the messages is dropped, so the next call makes it again.
 */
export async function sendThroughLinks(
  links: Links,
  entity: string,
  messages: readonly OutgoingMessage[],
  nowMs: number,
  signal: AbortSignal,
  fail: (error: unknown) => QueueError,
): Promise<BatchEntryResult[]> {
  const sender = links.sender(entity);
  try {
    // Each SDK call gets a signal of its own: the SDK leaves a listener on every signal it is given.
    return await withOwnSignal(signal, (own) => sendInBatches(sender, messages, nowMs, own, fail));
  } catch (error) {
    if (!QueueError.is(error, "Validation") && !QueueError.is(error, "MessageTooLarge"))
      links.dropSender(entity, sender);
    throw error;
  }
}
