import type { Channel } from "amqplib";

/**
 * Tells when the broker has applied the acks and nacks a channel sent, which AMQP 0.9.1 never
 * answers: a passive declare sent after them is answered after them. Settles that wait at the same
 * moment share one declare (the one not sent yet), so a batch of completes costs one round trip;
 * a channel answers its calls one at a time, so the next declare goes once the one under way is
 * answered, and covers every ack sent until then.
 */
export class SettleBarrier {
  readonly #channel: Channel;
  readonly #brokerQueue: string;
  /** The declare under way, answered or not. */
  #sent: Promise<unknown> = Promise.resolve();
  /** The declare that waits for the one under way: every settle until it goes shares it. */
  #next: Promise<void> | undefined;

  constructor(channel: Channel, brokerQueue: string) {
    this.#channel = channel;
    this.#brokerQueue = brokerQueue;
  }

  /** Resolves once the broker applied every settle this channel sent before the call; rejects as the declare does (404 when the queue was deleted). */
  applied(): Promise<void> {
    this.#next ??= this.#sent
      .catch(() => undefined)
      .then(() => {
        this.#next = undefined;
        const sent = this.#channel.checkQueue(this.#brokerQueue);
        this.#sent = sent;
        return sent;
      })
      .then(() => undefined);
    return this.#next;
  }
}

/** One {@link SettleBarrier} per channel, made on first use and gone with the channel. */
export class SettleBarriers {
  readonly #byChannel = new WeakMap<Channel, SettleBarrier>();

  /** Resolves once the broker applied every settle `channel` sent before the call. */
  applied(channel: Channel, brokerQueue: string): Promise<void> {
    let barrier = this.#byChannel.get(channel);
    if (barrier === undefined) {
      barrier = new SettleBarrier(channel, brokerQueue);
      this.#byChannel.set(channel, barrier);
    }
    return barrier.applied();
  }
}
