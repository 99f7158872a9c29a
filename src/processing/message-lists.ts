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

  /** Unlinks and returns the first node; the list must not be empty. */
  shift(): N {
    const node = this.head!;
    const next = node.next;
    this.head = next;
    if (next === undefined) this.tail = undefined;
    else next.prev = undefined;
    node.next = undefined;
    this.size--;
    return node;
  }

  /** Takes over every node of `other`, in order, leaving it empty; O(1). */
  takeOver(other: StateList<N>): void {
    this.head = other.head;
    this.tail = other.tail;
    this.size = other.size;
    other.head = undefined;
    other.tail = undefined;
    other.size = 0;
  }

  /** Links `node`, which must not be in any state list, right after `anchor` (undefined: first). */
  insertAfter(node: N, anchor: N | undefined): void {
    if (anchor === this.tail) {
      this.push(node);
      return;
    }
    const next = anchor === undefined ? this.head : anchor.next;
    node.prev = anchor;
    node.next = next;
    if (anchor === undefined) this.head = node;
    else anchor.next = node;
    // `anchor` is not the tail, so something follows it.
    next!.prev = node;
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

/**
 * The pending list, which a tick walks in rounds: a round takes, from the head, the messages that
 * were pending when it began and nothing appended since, without a stamp on every message. It
 * keeps the last message of the round, moving it back when that message leaves early; a round
 * begun inside another (a tick from a processor) takes the rest of the outer one and ends it.
 */
export class PendingList<N extends StateLinks<N>> extends StateList<N> {
  #last: N | undefined = undefined;
  #round = 0;

  /** Begins a round over the messages pending now; returns its number for {@link PendingList.takeNext}. */
  beginRound(): number {
    this.#last = this.tail;
    // Kept within 32 bits, so that V8 never has to box it.
    this.#round = (this.#round + 1) | 0;
    return this.#round;
  }

  /** Removes and returns the next message of round `round`; undefined once the round is over. */
  takeNext(round: number): N | undefined {
    const last = this.#last;
    if (last === undefined || round !== this.#round) return undefined;
    // The round's last message is still in the list, so the head is a message of the round.
    if (this.head === last) this.#last = undefined;
    return this.shift();
  }

  /** Unlinks `node`, which must be in this list, keeping the current round's end in the list. */
  override remove(node: N): void {
    if (node === this.#last) this.#last = node.prev;
    super.remove(node);
  }
}

/** The links a queued message carries for the list of every message in the queue, oldest first. */
export interface ArrivalLinks<N> {
  older: N | undefined;
  newer: N | undefined;
}

/**
 * Every message in the queue in order of `enqueuedAt`, whatever its state, so that enqueue
 * timeouts are found from the oldest end without scanning the rest.
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
