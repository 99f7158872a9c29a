/** Where a contest takes messages from: a subscription of the topic (by index) or the plain queue. */
export type Source = number | "plain";

/**
 * What the contest needs of one store's client, on a fresh topic of its own: the topic
 * `orders` with its subscriptions, and a plain queue of the same store beside it.
 */
export interface TopicSide {
  /** Publishes order `index` to the topic, one call, as an application's request would. */
  publish(index: number): Promise<void>;
  /** Sends order `index` to the plain queue, one call. */
  send(index: number): Promise<void>;
  /** Publishes orders `from` to `to` - 1 in batches, to fill the subscriptions before a drain. */
  publishAll(from: number, to: number): Promise<void>;
  /** Receives and completes exactly `count` messages of `source`, at most `batch` per receive; fails if they do not come. */
  take(source: Source, count: number, batch: number): Promise<void>;
  /** Closes the client and removes the store. */
  close(): Promise<void>;
}

/** Makes a fresh store with a topic of `subscriptions` (half filtered) and a plain queue, and a client of it. */
export type OpenTopic = (subscriptions: number) => Promise<TopicSide>;

/** How long a take waits for a message that should be there already before it calls the run broken. */
export const TAKE_WAIT_MS = 5_000;

/** One store the contest runs on: its key on the command line, its name in the tables, how many messages a run takes. */
export interface TopicStore {
  readonly key: "sqlite" | "postgres" | "servicebus";
  readonly name: string;
  /** Publishes (and plain sends) per measured run. */
  readonly messages: number;
  readonly open: OpenTopic;
}

/**
 * Receives and completes exactly `count` messages of `queue`, at most `batch` a call of
 * `receiveAndComplete` (which resolves how many it settled); a call that brings none means the
 * copies the contest counted on are not there, so the run fails rather than measure a wrong thing.
 */
export async function takeExactly(
  queue: string,
  count: number,
  batch: number,
  receiveAndComplete: (most: number) => Promise<number>,
): Promise<void> {
  for (let left = count; left > 0; ) {
    const settled = await receiveAndComplete(Math.min(batch, left));
    if (settled === 0) throw new Error(`${queue}: ${left} of ${count} messages did not come`);
    left -= settled;
  }
}

/** Closes a client, then removes its store even when the close failed. */
export async function closeThen(
  close: () => Promise<void>,
  remove: () => Promise<void> | void,
): Promise<void> {
  try {
    await close();
  } finally {
    await remove();
  }
}
