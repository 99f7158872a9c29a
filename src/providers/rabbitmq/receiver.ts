import type { Channel, ConsumeMessage, Message } from "amqplib";
import type { Clock, TimerHandle } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import { isNotFound, type RabbitConnection } from "./connection.js";

/** What ended a receiver's channel: its queue deleted, or the connection. */
type Gone = (channel: Channel) => void;

/** Gives deliveries that were buffered but never handed out back to their queue, their deliveries counted as before. */
type GiveBack = (channel: Channel, messages: Message[]) => Promise<void>;

/** A watch for a message given back to come to a consumer. */
export interface ReturnWatch {
  /** Whether it came. */
  readonly returned: boolean;
  /** Stops watching. */
  stop(): void;
}

/**
 * How long a consumer with no receive in progress keeps consuming: a receive loop comes back
 * sooner, and a client that stopped receiving must not keep deliveries other clients wait for.
 */
export const CONSUMER_IDLE_MS = 250;

/**
 * One queue's consumer in this client, and the channel every delivery of the queue is taken on (a
 * receipt is valid on the channel that received it). A lone receive takes messages with basic.get,
 * one round trip each, and buffers nothing. A receive that waits, or that follows another within
 * {@link CONSUMER_IDLE_MS} (a receive loop), starts the consumer, which pushes deliveries (up to
 * prefetch) into a buffer the receives take from; a receive that finds the buffer short still asks
 * with basic.get, which prefetch does not limit, before it waits. The consumer stays, one per queue
 * per client, while receives keep coming; {@link CONSUMER_IDLE_MS} after the last one it is
 * cancelled and what it buffered is given back, so a client that stopped receiving holds nothing
 * another is waiting for.
 */
export class Receiver {
  readonly brokerQueue: string;
  readonly #connection: RabbitConnection;
  readonly #clock: Clock;
  readonly #prefetch: number;
  readonly #gone: Gone;
  readonly #giveBack: GiveBack;
  #channel: Promise<Channel> | undefined;
  #consuming: Promise<string> | undefined;
  readonly #buffer: Message[] = [];
  readonly #wake = new Set<() => void>();
  readonly #watches = new Set<ReturnWatch & { returned: boolean; matches(message: Message): boolean }>();
  /** Receives in progress. */
  #active = 0;
  #idle: TimerHandle | undefined;
  /** The give-back of what the last stopped consumer buffered: until it ends, those deliveries are counted nowhere. */
  #givingBack: Promise<void> = Promise.resolve();
  /** Set when the broker cancelled the consumer: the queue was deleted. */
  #deleted = false;
  #closed = false;

  constructor(
    brokerQueue: string,
    connection: RabbitConnection,
    clock: Clock,
    prefetch: number,
    gone: Gone,
    giveBack: GiveBack,
  ) {
    this.brokerQueue = brokerQueue;
    this.#connection = connection;
    this.#clock = clock;
    this.#prefetch = prefetch;
    this.#gone = gone;
    this.#giveBack = giveBack;
  }

  /** Deliveries waiting in the buffer. */
  get buffered(): number {
    return this.#buffer.length;
  }

  /** Whether this receiver's consumer is on the broker (or being started): a message given back may come to it. */
  get consuming(): boolean {
    return this.#consuming !== undefined;
  }

  /**
   * Watches for message `messageId` to come back to this consumer counted past `deliveries` (a
   * message given back); the watch says whether it came, even if a receive took it since.
   */
  watchReturn(messageId: unknown, deliveries: number): ReturnWatch {
    const watch = {
      returned: false,
      matches: (message: Message) =>
        message.properties.messageId === messageId &&
        Number(message.properties.headers?.["x-delivery-count"] ?? 0) > deliveries,
      stop: () => this.#watches.delete(watch),
    };
    this.#watches.add(watch);
    return watch;
  }

  /** Whether the broker told the consumer its queue is gone. */
  get deleted(): boolean {
    return this.#deleted;
  }

  /**
   * Up to `max` deliveries and the channel they came on: what the buffer holds, then what
   * basic.get finds, then, when there was nothing, the first that arrives before `deadline`.
   */
  async receive(
    max: number,
    deadline: number,
    signal: AbortSignal,
  ): Promise<{ channel: Channel; messages: Message[] }> {
    this.#active++;
    // A receive that follows another closely is a loop's: it is worth a consumer.
    const inLoop = this.#idle !== undefined;
    this.#idle?.cancel();
    this.#idle = undefined;
    try {
      return await this.#receive(max, deadline, signal, inLoop);
    } finally {
      if (--this.#active === 0 && !this.#closed)
        this.#idle = this.#clock.setTimer(() => this.#stopConsuming(), CONSUMER_IDLE_MS, true);
    }
  }

  async #receive(
    max: number,
    deadline: number,
    signal: AbortSignal,
    inLoop: boolean,
  ): Promise<{ channel: Channel; messages: Message[] }> {
    const channel = await this.channel();
    if (inLoop) await this.#consume(channel);
    const messages = this.#buffer.splice(0, max);
    try {
      // A short buffer is topped up with basic.get, which prefetch does not limit; the get's empty
      // answer comes after the deliveries the queue gave the consumer before it, so those are taken
      // too, and a receive that does not wait finds every message the queue had when it asked.
      while (messages.length < max) {
        const got = await channel.get(this.brokerQueue, { noAck: false });
        if (got === false) {
          messages.push(...this.#buffer.splice(0, max - messages.length));
          break;
        }
        messages.push(got);
      }
    } catch (error) {
      if (isNotFound(error))
        throw new QueueError("QueueNotFound", `queue ${this.brokerQueue} does not exist`);
      throw this.#connection.failure(error, `receive from ${this.brokerQueue}`);
    }
    if (messages.length > 0 || this.#clock.now() >= deadline || signal.aborted) return { channel, messages };
    await this.#consume(channel);
    await this.#waitForDelivery(deadline, signal);
    return { channel, messages: this.#buffer.splice(0, max) };
  }

  /** The channel of this queue's deliveries, opened on first use and again after it closed. */
  channel(): Promise<Channel> {
    if (this.#closed) return Promise.reject(new QueueError("ClientClosed", "the rabbitmq client is closed"));
    this.#channel ??= (async () => {
      const channel = await this.#connection.channel();
      await channel.prefetch(this.#prefetch);
      channel.on("close", () => this.#lost(channel));
      return channel;
    })().catch((error: unknown) => {
      this.#channel = undefined;
      throw error;
    });
    return this.#channel;
  }

  #consume(channel: Channel): Promise<string> {
    this.#consuming ??= channel
      .consume(this.brokerQueue, (message) => this.#deliver(message), { noAck: false })
      .then((reply) => reply.consumerTag)
      .catch((error: unknown) => {
        this.#consuming = undefined;
        if (isNotFound(error))
          throw new QueueError("QueueNotFound", `queue ${this.brokerQueue} does not exist`);
        throw this.#connection.failure(error, `consume from ${this.brokerQueue}`);
      });
    return this.#consuming;
  }

  /** Cancels the consumer now, unless a receive is under way, and gives back what it buffered. */
  letGo(): Promise<void> {
    this.#idle?.cancel();
    return this.#stopConsuming();
  }

  /** Resolves once what a stopped consumer buffered is back in its queue, so the broker counts it. */
  givenBack(): Promise<void> {
    return this.#givingBack;
  }

  /** Cancels the consumer of a receiver no one used for a while, and gives back what it buffered. */
  #stopConsuming(): Promise<void> {
    this.#idle = undefined;
    const consuming = this.#consuming;
    if (this.#active > 0 || consuming === undefined) return this.#givingBack;
    this.#consuming = undefined;
    const previous = this.#givingBack;
    this.#givingBack = (async () => {
      await previous;
      try {
        const channel = await this.channel();
        await channel.cancel(await consuming);
        const buffered = this.#buffer.splice(0);
        if (buffered.length > 0) await this.#giveBack(channel, buffered);
      } catch {
        // The channel is gone: the broker took back what it held.
      }
    })();
    return this.#givingBack;
  }

  #deliver(message: ConsumeMessage | null): void {
    if (message === null) {
      // The broker cancels a consumer whose queue was deleted.
      this.#deleted = true;
      this.#consuming = undefined;
    } else {
      this.#buffer.push(message);
      for (const watch of this.#watches) if (watch.matches(message)) watch.returned = true;
    }
    for (const wake of [...this.#wake]) wake();
  }

  #waitForDelivery(deadline: number, signal: AbortSignal): Promise<void> {
    if (this.#buffer.length > 0 || this.#deleted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const end = () => {
        timer.cancel();
        signal.removeEventListener("abort", end);
        this.#wake.delete(end);
        resolve();
      };
      const timer = this.#clock.setTimer(end, Math.max(0, deadline - this.#clock.now()));
      signal.addEventListener("abort", end, { once: true });
      this.#wake.add(end);
    });
  }

  /** The channel closed (connection lost, or an error on it): buffered deliveries went back with it. */
  #lost(channel: Channel): void {
    this.#channel = undefined;
    this.#consuming = undefined;
    this.#buffer.length = 0;
    this.#gone(channel);
    for (const wake of [...this.#wake]) wake();
  }

  /** Stops; closing the channel gives back every buffered delivery (they were never handed out). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#idle?.cancel();
    for (const wake of [...this.#wake]) wake();
    const channel = await this.#channel?.catch(() => undefined);
    this.#buffer.length = 0;
    await channel?.close().catch(() => undefined);
  }
}
