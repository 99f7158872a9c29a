import { type Clock, sleep } from "./clock.js";
import { QueueError } from "./errors.js";

/**
 * What an accept of a session answers when its queue is not there: no next session came (a send
 * would have made the queue), or the named session cannot be held on a queue that does not exist.
 */
export function noQueueToAcceptFrom(queue: string, sessionId: string | undefined): QueueError {
  return sessionId === undefined
    ? new QueueError("NoSessionAvailable", `no session of ${queue} was free in the time given`)
    : new QueueError("QueueNotFound", `queue ${queue} does not exist`);
}

/** How often a read on a queue that does not exist yet looks again, at most. */
export const QUEUE_POLL_MS = 1_000;

/**
 * Waits until `exists` answers true (resolving true) or `deadline` on `clock` passes or `signal`
 * aborts (resolving false), asking every {@link QUEUE_POLL_MS}. Reads never create queues: a
 * provider that creates them on first use has a receive wait this way for the send that makes
 * its queue, where nothing tells it when that happens.
 */
export async function awaitQueue(
  exists: () => Promise<boolean>,
  clock: Clock,
  deadline: number,
  signal: AbortSignal,
): Promise<boolean> {
  for (;;) {
    if (await exists()) return true;
    const left = deadline - clock.now();
    if (left <= 0 || signal.aborted) return false;
    await sleep(clock, Math.min(left, QUEUE_POLL_MS), signal);
  }
}
