import type { ReceivedMessage } from "../../core/message.js";
import type { ReceiptHandle } from "../../core/receipt-handle.js";
import { DEAD_LETTER_ATTRIBUTES } from "../../rules/dead-letters.js";
import type { NatsLink } from "./connection.js";
import type { MessageMeta } from "./message-mapping.js";
import type { QueueCatalog } from "./queue-catalog.js";
import { transfer } from "./transfer.js";

/** What a redrive needs from the provider: its own receive and settles. */
export interface RedriveDeps {
  readonly link: NatsLink;
  readonly prefix: string;
  readonly catalog: QueueCatalog;
  readonly receive: (queue: string, max: number) => Promise<ReceivedMessage[]>;
  readonly complete: (receipt: ReceiptHandle) => Promise<void>;
  readonly abandon: (receipt: ReceiptHandle) => Promise<void>;
}

/**
 * Moves dead letters back by receiving them, as any receiver would (JetStream tells a locked
 * message from a ready one only by delivering it): a message locked by a receiver (or in a session
 * held) stays where it is. Each is stored on its source queue (or `target`) as a fresh message,
 * PubAck awaited, then completed here; one whose queue no longer exists is held until the end,
 * then given back (one delivery more). Resolves how many moved.
 */
export async function redriveByReceiving(
  deps: RedriveDeps,
  deadLetterQueue: string,
  target?: string,
): Promise<number> {
  const { catalog } = deps;
  const source = await catalog.require(deadLetterQueue);
  const fixed = target === undefined ? undefined : await catalog.require(target);
  const stuck: ReceivedMessage[] = [];
  let moved = 0;
  try {
    for (;;) {
      const batch = await deps.receive(deadLetterQueue, 100);
      if (batch.length === 0) return moved;
      for (const message of batch) {
        const attributes = { ...message.attributes };
        const to =
          fixed ?? (await catalog.find(attributes[DEAD_LETTER_ATTRIBUTES.sourceQueue] ?? deadLetterQueue));
        if (to === undefined || to.name === deadLetterQueue) {
          stuck.push(message);
          continue;
        }
        delete attributes[DEAD_LETTER_ATTRIBUTES.reason];
        delete attributes[DEAD_LETTER_ATTRIBUTES.description];
        delete attributes[DEAD_LETTER_ATTRIBUTES.sourceQueue];
        const meta: MessageMeta = {
          id: message.messageId,
          ...(message.sessionId === undefined ? {} : { sessionId: message.sessionId }),
          ...(message.correlationId === undefined ? {} : { correlationId: message.correlationId }),
          ...(message.contentType === undefined ? {} : { contentType: message.contentType }),
          enqueuedAt: message.enqueuedAt.getTime(),
        };
        await transfer(deps.link, deps.prefix, source, to, meta, message.body, attributes);
        await deps.complete(message.receiptHandle);
        moved++;
      }
    }
  } finally {
    for (const message of stuck) await deps.abandon(message.receiptHandle).catch(() => undefined);
  }
}
