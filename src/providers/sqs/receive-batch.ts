import type { OperationContext } from "../../core/provider.js";
import { type DecodedMessage, decodeMessage, RECEIVED_SYSTEM_ATTRIBUTES } from "./message-mapping.js";
import type { SqsQueue } from "./queue-urls.js";
import type { SqsContext } from "./sqs-context.js";

/** The longest wait one ReceiveMessage may ask for. */
export const SQS_MAX_WAIT_SECONDS = 20;
const ALL = ["All"];

/** The `WaitTimeSeconds` for a wait: whole seconds, rounded up, so a receive never ends before its wait. */
export function waitSeconds(waitMs: number): number {
  return waitMs <= 0 ? 0 : Math.min(SQS_MAX_WAIT_SECONDS, Math.ceil(waitMs / 1000));
}

/**
 * One ReceiveMessage of up to `max` (at most ten) messages, long-polling up to `waitMs` (whole
 * seconds, at most twenty); each message's lock ends the queue's visibility timeout after it
 * arrived. Every message is kept in `received` until settled.
 */
export async function receiveBatch(
  sqs: SqsContext,
  queue: SqsQueue,
  max: number,
  waitMs: number,
  context: OperationContext,
): Promise<DecodedMessage[]> {
  const settings = sqs.directory.knownSettings(queue) ?? (await sqs.directory.settings(queue, context));
  const seconds = waitSeconds(waitMs);
  const { Messages } = await sqs.http.call(
    "ReceiveMessage",
    {
      QueueUrl: queue.url,
      MaxNumberOfMessages: max,
      WaitTimeSeconds: seconds,
      MessageSystemAttributeNames: RECEIVED_SYSTEM_ATTRIBUTES,
      MessageAttributeNames: ALL,
    },
    context,
    seconds * 1000,
  );
  if (Messages === undefined || Messages.length === 0) return [];
  const now = sqs.clock.now();
  const lockedUntil = now + settings.lockDurationMs;
  const decoded: DecodedMessage[] = [];
  for (const message of Messages) {
    const one = decodeMessage(message, queue, now, lockedUntil);
    sqs.received.remember(one);
    decoded.push(one);
  }
  return decoded;
}
