import type { QueuedMessage } from "./queued-message.js";

/**
 * One running tick: the message whose processor call it is in, if any, and the tick it runs
 * inside of (a processor may tick). A new small object per tick rather than a field of the queue:
 * storing each message into a young object spares the write barrier a long-lived queue would hit.
 */
export class TickFrame<T> {
  /** The message whose processor call this tick is in. */
  calling: QueuedMessage<T> | undefined = undefined;

  /** A tick that runs inside `outer` (undefined for a tick of its own). */
  constructor(readonly outer: TickFrame<T> | undefined) {}
}
