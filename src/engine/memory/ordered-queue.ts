/** An entry of an {@link OrderedQueue}: ordered by `key`, then by `tie`. */
export interface Ordered {
  readonly key: number;
  readonly tie: number;
}

/** What {@link OrderedQueue.take} does with an entry it meets. */
export type Verdict = "take" | "keep" | "drop" | "stop";

function before(a: Ordered, b: Ordered): boolean {
  return a.key < b.key || (a.key === b.key && a.tie < b.tie);
}

/**
 * A priority queue tuned for queues: entries that arrive in order (the common case, such as new
 * messages with rising sequence numbers) are appended to a run in O(1); the rest go to a binary
 * heap. The smallest entry is the smaller of the two heads, so every operation stays O(1) or
 * O(log k) in the number of out-of-order entries, whatever the depth.
 */
export class OrderedQueue<T extends Ordered> {
  #run: (T | undefined)[] = [];
  #runHead = 0;
  readonly #heap: T[] = [];

  /** How many entries are held (stale ones included, until dropped). */
  get size(): number {
    return this.#run.length - this.#runHead + this.#heap.length;
  }

  /** Adds an entry. */
  push(entry: T): void {
    const run = this.#run;
    const last = run.length > this.#runHead ? run[run.length - 1] : undefined;
    if (last === undefined || !before(entry, last)) run.push(entry);
    else this.#heapPush(entry);
  }

  /** The smallest entry, or `undefined`. */
  peek(): T | undefined {
    const fromRun = this.#runHead < this.#run.length ? this.#run[this.#runHead] : undefined;
    const fromHeap = this.#heap[0];
    if (fromRun === undefined) return fromHeap;
    if (fromHeap === undefined) return fromRun;
    return before(fromHeap, fromRun) ? fromHeap : fromRun;
  }

  /** Removes and returns the smallest entry. */
  pop(): T | undefined {
    const fromRun = this.#runHead < this.#run.length ? this.#run[this.#runHead] : undefined;
    const fromHeap = this.#heap[0];
    if (fromRun === undefined && fromHeap === undefined) return undefined;
    if (fromRun === undefined || (fromHeap !== undefined && before(fromHeap, fromRun)))
      return this.#heapPop();
    this.#run[this.#runHead++] = undefined;
    if (this.#runHead > 1024 && this.#runHead * 2 > this.#run.length) {
      this.#run = this.#run.slice(this.#runHead);
      this.#runHead = 0;
    }
    return fromRun;
  }

  /**
   * Returns up to `limit` entries in order that `judge` calls "take". Entries judged "drop" are
   * removed for good; taken and "keep" entries stay queued (a store drops them once stale);
   * "stop" ends the scan there.
   */
  take(limit: number, judge: (entry: T) => Verdict): T[] {
    const found: T[] = [];
    const held: T[] = [];
    while (found.length < limit) {
      const entry = this.pop();
      if (entry === undefined) break;
      const verdict = judge(entry);
      if (verdict === "drop") continue;
      if (verdict === "stop") {
        held.push(entry);
        break;
      }
      if (verdict === "take") found.push(entry);
      held.push(entry);
    }
    for (let i = held.length - 1; i >= 0; i--) this.#restore(held[i]!);
    return found;
  }

  /** The smallest entry that `valid` accepts, dropping invalid ones before it. */
  first(valid: (entry: T) => boolean): T | undefined {
    for (;;) {
      const entry = this.peek();
      if (entry === undefined || valid(entry)) return entry;
      this.pop();
    }
  }

  /** Drops every entry. */
  clear(): void {
    this.#run = [];
    this.#runHead = 0;
    this.#heap.length = 0;
  }

  // Puts back an entry just popped, in front of the run when it belongs there (keeping pushes O(1)).
  #restore(entry: T): void {
    const head = this.#runHead < this.#run.length ? this.#run[this.#runHead] : undefined;
    if (this.#runHead > 0 && (head === undefined || !before(head, entry))) {
      this.#run[--this.#runHead] = entry;
      return;
    }
    this.#heapPush(entry);
  }

  #heapPush(entry: T): void {
    const heap = this.#heap;
    let index = heap.length;
    heap.push(entry);
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!before(entry, heap[parent]!)) break;
      heap[index] = heap[parent]!;
      index = parent;
    }
    heap[index] = entry;
  }

  #heapPop(): T | undefined {
    const heap = this.#heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length === 0 || last === undefined) return top;
    let index = 0;
    const length = heap.length;
    for (;;) {
      const left = index * 2 + 1;
      if (left >= length) break;
      const right = left + 1;
      const child = right < length && before(heap[right]!, heap[left]!) ? right : left;
      if (!before(heap[child]!, last)) break;
      heap[index] = heap[child]!;
      index = child;
    }
    heap[index] = last;
    return top;
  }
}
