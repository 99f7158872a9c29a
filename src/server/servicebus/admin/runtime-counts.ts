import { isDeferred } from "../../../engine/deferral-marks.js";
import type { QueueEngine } from "../../../engine/queue-engine.js";
import type { QueueRecord } from "../../../rules/queue-records.js";

/** A queue's message counts as Azure reports them. */
export interface RuntimeCounts {
  /** Messages that can be (or are being) received: ready, locked and deferred ones. */
  readonly active: number;
  readonly deadLetter: number;
  /** Messages sent for later delivery that have not come due. */
  readonly scheduled: number;
  /** Always 0: the server does not forward. */
  readonly transfer: number;
  readonly transferDeadLetter: number;
  /** Every message of the queue and of its dead-letter queue, as Azure's `MessageCount` counts. */
  readonly total: number;
  /** The bodies of those messages, in bytes. */
  readonly sizeInBytes: number;
}

const PAGE = 256;

/**
 * The counts of a queue now. The engine counts by state (ready, locked, delayed) after applying
 * what time has done; bodies and deferred messages (stored as delayed forever) are found by
 * peeking through the queue and its dead-letter queue, a page at a time, so this reads every
 * message: fine for an admin call, not for a hot path.
 */
export function runtimeCounts(engine: QueueEngine, queue: QueueRecord): RuntimeCounts {
  return engine.transaction(() => {
    const stats = engine.stats(queue.name);
    const own = scan(engine, queue.name);
    const dead =
      queue.deadLetterQueue !== null && engine.getQueueRecord(queue.deadLetterQueue) !== undefined
        ? scan(engine, queue.deadLetterQueue)
        : { bytes: 0, deferred: 0 };
    const active = stats.active + stats.inFlight + own.deferred;
    const scheduled = Math.max(0, stats.delayed - own.deferred);
    return {
      active,
      deadLetter: stats.deadLettered,
      scheduled,
      transfer: 0,
      transferDeadLetter: 0,
      total: active + scheduled + stats.deadLettered,
      sizeInBytes: own.bytes + dead.bytes,
    };
  });
}

function scan(engine: QueueEngine, name: string): { bytes: number; deferred: number } {
  let bytes = 0;
  let deferred = 0;
  let from = 0;
  for (;;) {
    const page = engine.peek(name, from, PAGE);
    for (const message of page) {
      bytes += message.body.byteLength;
      if (isDeferred(message)) deferred++;
    }
    if (page.length < PAGE) return { bytes, deferred };
    from = page.at(-1)!.seq + 1;
  }
}

/** The counts of several queues added up (a topic's, over its subscriptions). */
export function sumCounts(all: readonly RuntimeCounts[]): RuntimeCounts {
  const sum = (pick: (counts: RuntimeCounts) => number) =>
    all.reduce((total, counts) => total + pick(counts), 0);
  return {
    active: sum((counts) => counts.active),
    deadLetter: sum((counts) => counts.deadLetter),
    scheduled: sum((counts) => counts.scheduled),
    transfer: 0,
    transferDeadLetter: 0,
    total: sum((counts) => counts.total),
    sizeInBytes: sum((counts) => counts.sizeInBytes),
  };
}
