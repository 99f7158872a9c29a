import type { QueueEngine } from "../../engine/queue-engine.js";
import type { QueueRecord } from "../../rules/queue-records.js";

/** What an AMQP address or an admin path names: a queue, or its dead-letter sub-queue, and whether its `$management` node. */
export interface EntityAddress {
  /** The queue's name as the client wrote it (matched case-insensitively, as Azure does). */
  readonly queue: string;
  readonly deadLetter: boolean;
  readonly management: boolean;
}

const DEAD_LETTER = "$deadletterqueue";
const MANAGEMENT = "$management";

/**
 * Parses an entity path: `orders`, `orders/$DeadLetterQueue`, and either with `/$management`
 * after it. Sub-queues and nodes are matched case-insensitively. Anything else (a topic's
 * `Subscriptions/...`, a transfer dead-letter queue) is `undefined`: an unknown entity.
 */
export function parseEntityPath(path: string): EntityAddress | undefined {
  const { parts, deadLetter, management } = splitEntityPath(path);
  if (parts.some((part) => part.length === 0 || part.startsWith("$"))) return undefined;
  if (parts.length > 1 && parts.some((part) => part.toLowerCase() === "subscriptions")) return undefined;
  return { queue: parts.join("/"), deadLetter, management };
}

/**
 * An entity path's segments without its `$DeadLetterQueue` and `$management` suffixes (matched
 * in any case), and which of them it had.
 */
export function splitEntityPath(path: string): { parts: string[]; deadLetter: boolean; management: boolean } {
  const parts = path.split("/");
  let management = false;
  if (parts.length > 1 && parts.at(-1)!.toLowerCase() === MANAGEMENT) {
    management = true;
    parts.pop();
  }
  let deadLetter = false;
  if (parts.length > 1 && parts.at(-1)!.toLowerCase() === DEAD_LETTER) {
    deadLetter = true;
    parts.pop();
  }
  return { parts, deadLetter, management };
}

/** The engine's queue a Service Bus name means: its exact name first, else one that differs only in case. */
export function findQueue(engine: QueueEngine, name: string): QueueRecord | undefined {
  const exact = engine.getQueueRecord(name);
  if (exact !== undefined) return exact;
  const lower = name.toLowerCase();
  return engine.listQueues().find((queue) => queue.name.toLowerCase() === lower);
}

/** The names of the engine queues that are some queue's dead-letter queue: not entities of their own. */
export function deadLetterQueueNames(engine: QueueEngine): Set<string> {
  const names = new Set<string>();
  for (const queue of engine.listQueues())
    if (queue.deadLetterQueue !== null) names.add(queue.deadLetterQueue);
  return names;
}

/** The queue a Service Bus name means (any case), unless it is only some queue's dead-letter queue. */
export function findServiceBusQueue(engine: QueueEngine, name: string): QueueRecord | undefined {
  const found = findQueue(engine, name);
  return found === undefined || deadLetterQueueNames(engine).has(found.name) ? undefined : found;
}

/** The entity path Azure gives a queue's dead-letter sub-queue. */
export function deadLetterPath(queue: string): string {
  return `${queue}/$DeadLetterQueue`;
}
