import { type Clock, sleep } from "./clock.js";

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
