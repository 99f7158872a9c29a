import type { Channel, ConsumeMessage, Message } from "amqplib";
import type { Clock } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import { isNotFound, type RabbitConnection } from "./connection.js";

/** What ended a receiver's channel: its queue deleted (`QueueNotFound`), or the connection. */
type Gone = (channel: Channel) => void;

/**
 * One queue's long-lived consumer in this client, and the channel every delivery of the queue is
 * taken on (a receipt is valid on the channel that received it). Deliveries wait in a buffer until a
 * receive takes them; a receive that finds the buffer short asks for more with basic.get (which
 * prefetch does not limit), and only a receive that finds nothing at all waits for the consumer.
 * The consumer starts on the first wait and then stays, one per queue per client.
 */
export class Receiver {
  readonly brokerQueue: string;
  readonly #connection: RabbitConnection;
  readonly #clock: Clock;
  readonly #prefetch: number;
  readonly #gone: Gone;
  #channel: Promise<Channel> | undefined;
  #consuming: Promise<void> | undefined;
  readonly #buffer: Message[] = [];
  readonly #wake = new Set<() => void>();
  /** Set when the broker cancelled the consumer: the queue was deleted. */
  #deleted = false;
  #closed = false;

  constructor(brokerQueue: string, connection: RabbitConnection, clock: Clock, prefetch: number, gone: Gone) {
    this.brokerQueue = brokerQueue;
    this.#connection = connection;
    this.#clock = clock;
    this.#prefetch = prefetch;
    this.#gone = gone;
  }

  /** Deliveries waiting in the buffer. */
  get buffered(): number {
    return this.#buffer.length;
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
    const channel = await this.channel();
    const messages = this.#buffer.splice(0, max);
    try {
      while (messages.length < max) {
        const got = await channel.get(this.brokerQueue, { noAck: false });
        if (got === false) break;
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

  #consume(channel: Channel): Promise<void> {
    this.#consuming ??= channel
      .consume(this.brokerQueue, (message) => this.#deliver(message), { noAck: false })
      .then(() => undefined)
      .catch((error: unknown) => {
        this.#consuming = undefined;
        if (isNotFound(error))
          throw new QueueError("QueueNotFound", `queue ${this.brokerQueue} does not exist`);
        throw this.#connection.failure(error, `consume from ${this.brokerQueue}`);
      });
    return this.#consuming;
  }

  #deliver(message: ConsumeMessage | null): void {
    if (message === null) {
      // The broker cancels a consumer whose queue was deleted.
      this.#deleted = true;
      this.#consuming = undefined;
    } else this.#buffer.push(message);
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

  /** Gives back every buffered delivery (they were never handed out) and stops. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const wake of [...this.#wake]) wake();
    const channel = await this.#channel?.catch(() => undefined);
    this.#buffer.length = 0;
    await channel?.close().catch(() => undefined);
  }
}
