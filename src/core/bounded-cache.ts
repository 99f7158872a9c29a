/**
 * A cache of a few hot entries that starts over when full: for values derived from what clients
 * repeat on every request (a signing key, a parsed header, a queue URL's name), where forgetting
 * costs only deriving the ones in use again, and no eviction order is worth keeping.
 */
export class BoundedCache<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #maxEntries: number;

  /** Holds at most `maxEntries` entries. */
  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
  }

  /** The value remembered for `key`, if any. */
  get(key: K): V | undefined {
    return this.#entries.get(key);
  }

  /** Forgets `key`. */
  delete(key: K): void {
    this.#entries.delete(key);
  }

  /** Remembers `value` for `key`, forgetting everything else first when full. */
  set(key: K, value: V): void {
    if (this.#entries.size >= this.#maxEntries) this.#entries.clear();
    this.#entries.set(key, value);
  }
}
