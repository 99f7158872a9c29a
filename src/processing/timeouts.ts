import { QueueError } from "../core/errors.js";
import type { MessageExtras } from "./message-extras.js";
import type { ArrivalList, StateList } from "./message-lists.js";
import type { QueuedMessage } from "./queued-message.js";

/** Takes an expired message out of the queue with the `Timeout` reason given. */
export type Expire<T> = (item: QueuedMessage<T>, reason: QueueError) => void;

/**
 * Expires every message that has been in the queue `limit()` ms or more. Arrival order is
 * enqueue-time order, so they are all at the oldest end: nothing younger is visited. The limit is
 * read again for each message because a Timeout callback may change it.
 */
export function expireEnqueued<T>(
  arrivals: ArrivalList<MessageExtras<T>>,
  now: number,
  limit: () => number,
  expire: Expire<T>,
): void {
  for (let extras = arrivals.oldest; extras !== undefined; extras = arrivals.oldest) {
    const limitMs = limit();
    const waited = now - extras.enqueuedAt;
    if (limitMs === 0 || waited < limitMs) return;
    expire(
      extras.item,
      new QueueError(
        "Timeout",
        `the message stayed ${waited} ms in the queue; maxEnqueuedTimeMs is ${limitMs}`,
      ),
    );
  }
}

/**
 * Expires every attempt that has run `limit()` ms or more. The in-progress list is in order of
 * processing start, so they are all at its head.
 */
export function expireProcessing<T>(
  inProgress: StateList<QueuedMessage<T>>,
  now: number,
  limit: () => number,
  expire: Expire<T>,
): void {
  for (let item = inProgress.head; item !== undefined; item = inProgress.head) {
    const limitMs = limit();
    const ran = now - (item.extras?.processingStartedAt ?? now);
    if (limitMs === 0 || ran < limitMs) return;
    expire(
      item,
      new QueueError("Timeout", `attempt ${item.attempts} ran ${ran} ms; maxProcessingTimeMs is ${limitMs}`),
    );
  }
}
