import type { Clock, TimerHandle } from "../../core/clock.js";
import type { Catalog } from "./catalog.js";

/** How long counts of publishes gather before they are written to the catalog. */
export const PUBLISH_COUNT_FLUSH_MS = 500;

/**
 * The counts of what this client published to each topic, written to the catalog stream (which
 * is never trimmed) at most once per {@link PUBLISH_COUNT_FLUSH_MS} per topic, not once per
 * publish: a busy topic adds two small records a second, not one per message. This client's own
 * `getTopicStats` writes what it gathered first; another process sees it within the interval.
 */
export class PublishCounts {
  readonly #catalog: Catalog;
  readonly #clock: Clock;
  /** Counts not written yet, by topic, with the id of the topic they were published to. */
  #pending = new Map<string, { id: string; count: number }>();
  #timer: TimerHandle | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(catalog: Catalog, clock: Clock) {
    this.#catalog = catalog;
    this.#clock = clock;
  }

  /** Counts `count` messages published to the topic `topic` made by record `id`. */
  add(topic: string, id: string, count: number): void {
    const pending = this.#pending.get(topic);
    if (pending?.id === id) pending.count += count;
    else {
      // A topic made again since: what went to the old one is written before it is forgotten.
      if (pending !== undefined) void this.flush().catch(() => undefined);
      this.#pending.set(topic, { id, count });
    }
    this.#timer ??= this.#clock.setTimer(
      () => void this.flush().catch(() => undefined),
      PUBLISH_COUNT_FLUSH_MS,
      true,
    );
  }

  /** Writes every count gathered so far; resolves once the broker has them (and the writes before). */
  flush(): Promise<void> {
    this.#timer?.cancel();
    this.#timer = undefined;
    const pending = this.#pending;
    this.#pending = new Map();
    const previous = this.#writing;
    this.#writing = (async () => {
      await previous.catch(() => undefined);
      for (const [topic, { id, count }] of pending)
        await this.#catalog.appendTopic({ kind: "published", topic, id, count });
    })();
    return this.#writing;
  }
}
