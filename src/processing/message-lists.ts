/** The links a queued message carries for the list of its state (pending or in progress). */
export interface StateLinks<N> {
  prev: N | undefined;
  next: N | undefined;
}

/**
 * A FIFO of messages in one state, linked through the messages themselves so that append,
 * removal of the head and removal from the middle are all O(1) and allocate nothing.
 */
export class StateList<N extends StateLinks<N>> {
  /** The message that entered this state first. */
  head: N | undefined = undefined;
  /** The message that entered this state last. */
  tail: N | undefined = undefined;
  /** How many messages are in this state. */
  size = 0;

  /** Appends `node`, which must not be in any state list. */
  push(node: N): void {
    node.prev = this.tail;
    node.next = undefined;
    if (this.tail === undefined) this.head = node;
    else this.tail.next = node;
    this.tail = node;
    this.size++;
  }

  /** Unlinks `node`, which must be in this list. */
  remove(node: N): void {
    const { prev, next } = node;
    if (prev === undefined) this.head = next;
    else prev.next = next;
    if (next === undefined) this.tail = prev;
    else next.prev = prev;
    node.prev = undefined;
    node.next = undefined;
    this.size--;
  }
}

/** The links a queued message carries for the list of every message in the queue, oldest first. */
export interface ArrivalLinks<N> {
  older: N | undefined;
  newer: N | undefined;
}

/**
 * Every message in the queue in the order it was added, whatever its state: the order of
 * `enqueuedAt`, so enqueue timeouts are found from the oldest end without scanning the rest.
 */
export class ArrivalList<N extends ArrivalLinks<N>> {
  /** The message added first. */
  oldest: N | undefined = undefined;
  /** The message added last. */
  newest: N | undefined = undefined;
  /** How many messages the queue holds. */
  size = 0;

  /** Appends `node` as the newest message. */
  push(node: N): void {
    node.older = this.newest;
    node.newer = undefined;
    if (this.newest === undefined) this.oldest = node;
    else this.newest.newer = node;
    this.newest = node;
    this.size++;
  }

  /** Unlinks `node`, which must be in this list. */
  remove(node: N): void {
    const { older, newer } = node;
    if (older === undefined) this.oldest = newer;
    else older.newer = newer;
    if (newer === undefined) this.newest = older;
    else newer.older = older;
    node.older = undefined;
    node.newer = undefined;
    this.size--;
  }
}
