/**
 * The names of the broker objects behind a queue. Queue names never hold `~` (validateQueueName
 * allows letters, digits, `.`, `_`, `-`, `/` and `$`), so every object the provider makes for its
 * own purposes carries it and can never meet a queue of the application's.
 */
export class BrokerNames {
  readonly prefix: string;

  constructor(prefix: string) {
    this.prefix = prefix;
  }

  /** The broker queue holding `queue`'s messages (those without a session). */
  queue(queue: string): string {
    return this.prefix + queue;
  }

  /** The stream that holds this prefix's catalog of queues. */
  get catalog(): string {
    return `${this.prefix}~catalog`;
  }

  /** The broker queue holding one session's messages, in order. */
  session(queue: string, sessionId: string): string {
    return `${this.prefix}${queue}~s~${sessionId}`;
  }

  /** The session whose messages `brokerQueue` holds, when it is one of `queue`'s sessions. */
  sessionOf(queue: string, brokerQueue: string): string | undefined {
    const start = this.session(queue, "");
    return brokerQueue.startsWith(start) ? brokerQueue.slice(start.length) : undefined;
  }

  /** The empty queue whose exclusive consumer is the session's lock, for every process on the broker. */
  sessionLock(queue: string, sessionId: string): string {
    return `${this.prefix}${queue}~lock~${sessionId}`;
  }

  /** The queue (of at most one message) holding the session's state. */
  sessionState(queue: string, sessionId: string): string {
    return `${this.prefix}${queue}~state~${sessionId}`;
  }

  /** The queue holding messages for `target` (a broker queue) until `delayMs` passes. */
  holding(target: string, delayMs: number): string {
    return `${target}~delay~${delayMs}`;
  }

  /** The headers exchange a topic is published to; its bindings are its subscriptions' rules. */
  topic(topic: string): string {
    return `${this.prefix}${topic}~topic`;
  }

  /**
   * The headers exchange of the subscription whose path is `path`: the topic's exchange routes to
   * it once per message whatever number of its rules match, and it routes to the queue (or the
   * session's queue) that takes the subscription's copies.
   */
  subscription(path: string): string {
    return `${this.prefix}${path}~subscription`;
  }

  /** The queue-runtime queue a broker queue belongs to (dead-lettered messages name the broker's). */
  owner(brokerQueue: string): string {
    const unprefixed = brokerQueue.startsWith(this.prefix)
      ? brokerQueue.slice(this.prefix.length)
      : brokerQueue;
    const mark = unprefixed.indexOf("~");
    return mark < 0 ? unprefixed : unprefixed.slice(0, mark);
  }
}
