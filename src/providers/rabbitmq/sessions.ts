import type { Channel, Message } from "amqplib";
import { type Clock, sleep, type TimerHandle } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import type { ReceivedMessage } from "../../core/message.js";
import type { OperationContext, SessionProvider } from "../../core/provider.js";
import type { ReceiptHandle } from "../../core/receipt-handle.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import { isNotFound, type RabbitConnection } from "./connection.js";
import { declareSessionState } from "./declarations.js";
import type { Held } from "./held-messages.js";
import type { BrokerNames } from "./names.js";
import { byDeliveryTag, putBackFirst, type Returned } from "./returns.js";

/** How often a session receive that found nothing looks again, and an accept of the next session. */
export const SESSION_POLL_MS = 50;

/** The header that marks a cleared session state. */
const STATE_CLEARED = "qr-state-cleared";

/** What a session needs of its provider. */
export interface SessionDeps {
  readonly connection: RabbitConnection;
  readonly names: BrokerNames;
  readonly clock: Clock;
  /** Hands a delivery of `brokerQueue` out under the session's lock; undefined when it was dead-lettered or dropped instead. */
  handOut(
    queue: string,
    record: QueueRecord,
    brokerQueue: string,
    channel: Channel,
    message: Message,
    session: SessionHandOut,
  ): Promise<{ message: ReceivedMessage; id: string } | undefined>;
  /** Moves the lock end of a held delivery; false when its lock is gone. */
  extend(id: string, until: number): boolean;
  /** Settles a receipt as the provider does. */
  complete(receipt: ReceiptHandle, context: OperationContext): Promise<void>;
  abandon(receipt: ReceiptHandle, delayMs: number, context: OperationContext): Promise<void>;
  deadLetter(
    receipt: ReceiptHandle,
    reason: string,
    description: string | undefined,
    context: OperationContext,
  ): Promise<void>;
  /** Stops holding a delivery by its receipt id (its receipt is spent); undefined when its lock is gone. */
  take(id: string): Held | undefined;
  /** Publishes (confirmed) the dead letter of a message of `record` whose deliveries are used up. */
  deadLetterSpent(record: QueueRecord, message: Message): Promise<void>;
}

/** How a session hands a delivery out: under its lock, and taken back into it when abandoned. */
export interface SessionHandOut {
  /** Called when the message stops being held. */
  /** Called when the message stops being held; resolves once a borrowed session it ended is let go. */
  readonly released: () => Promise<void>;
  readonly lockedUntil: number;
  /** Takes the message back into the session (abandoned, or its lock ended). */
  readonly keep: (returned: Returned) => void;
  /** The deliveries the message had, when the session hands it out again. */
  readonly deliveries?: number;
}

/**
 * A locked session: an exclusive consumer on the session's lock queue, which the broker lets one
 * connection hold at a time and frees when that connection ends, so the lock holds across
 * processes. Messages are taken from the session's own queue with basic.get on the same channel,
 * one receive's worth at a time, so nothing is fetched that the holder did not ask for. An
 * abandoned message stays on the channel and is handed out again before the queue's next ones;
 * when the session is let go, what it holds goes back ahead of the rest, in order (a quorum queue
 * may put a nacked message behind the others, which a session's order cannot have). The
 * provider ends the lock itself at `sessionExpiresAt` unless renewed, and its messages' locks with
 * it. A borrowed session (a plain receive of a FIFO queue) also ends when its last message is settled.
 */
export class RabbitSession implements SessionProvider {
  readonly sessionId: string;
  readonly #deps: SessionDeps;
  readonly #queue: string;
  /** The queue this session is of. */
  readonly queue: string;
  readonly #record: QueueRecord;
  readonly #channel: Channel;
  readonly #lockDurationMs: number;
  readonly #borrowed: boolean;
  readonly #held = new Set<string>();
  /** Messages abandoned (or whose lock ended) while the session holds on: handed out again first, in the order taken. */
  readonly #returned: Returned[] = [];
  readonly #ended: (session: RabbitSession) => void;
  #expiresAt: number;
  #timer: TimerHandle | undefined;
  #lost = false;

  constructor(
    deps: SessionDeps,
    queue: string,
    sessionId: string,
    record: QueueRecord,
    channel: Channel,
    lockDurationMs: number,
    borrowed: boolean,
    ended: (session: RabbitSession) => void,
  ) {
    this.#deps = deps;
    this.#queue = queue;
    this.queue = queue;
    this.sessionId = sessionId;
    this.#record = record;
    this.#channel = channel;
    this.#borrowed = borrowed;
    this.#lockDurationMs = lockDurationMs;
    this.#ended = ended;
    this.#expiresAt = deps.clock.now() + this.#lockDurationMs;
    this.#arm();
    channel.on("close", () => {
      if (this.#lost) return;
      this.#end();
      // The channel failed under the session: its lock queue stays with the connection unless deleted.
      const unlocked = deps.connection.connected
        ? deps.connection.withChannel((other) => other.deleteQueue(this.lockName)).catch(() => undefined)
        : Promise.resolve();
      void unlocked.then(() => this.#ended(this));
    });
  }

  /** The name of the session's lock queue. */
  get lockName(): string {
    return this.#deps.names.sessionLock(this.#queue, this.sessionId);
  }

  get sessionExpiresAt(): Date {
    return new Date(this.#expiresAt);
  }

  /** Whether the lock is gone (closed, expired, or its connection lost). */
  get lost(): boolean {
    return this.#lost;
  }

  #arm(): void {
    this.#timer?.cancel();
    this.#timer = this.#deps.clock.setTimer(
      () => void this.release(),
      Math.max(0, this.#expiresAt - this.#deps.clock.now()),
      true,
    );
  }

  #checkHeld(): void {
    if (this.#lost)
      throw new QueueError(
        "SessionLockLost",
        `the lock on session ${this.sessionId} of ${this.#queue} is gone`,
      );
  }

  async receiveMessages(
    maxMessages: number,
    waitMs: number,
    context: OperationContext,
  ): Promise<ReceivedMessage[]> {
    const deadline = this.#deps.clock.now() + waitMs;
    const brokerQueue = this.#deps.names.session(this.#queue, this.sessionId);
    for (;;) {
      this.#checkHeld();
      const received: ReceivedMessage[] = [];
      try {
        while (received.length < maxMessages) {
          const again = this.#returned.shift();
          const got = again?.message ?? (await this.#channel.get(brokerQueue, { noAck: false }));
          if (got === false) break;
          const out = await this.#deps.handOut(this.#queue, this.#record, brokerQueue, this.#channel, got, {
            released: () => this.#release(out?.id),
            lockedUntil: this.#expiresAt,
            keep: (returned) => this.#keep(returned),
            ...(again === undefined ? {} : { deliveries: again.deliveries }),
          });
          if (out === undefined) continue;
          this.#held.add(out.id);
          received.push(out.message);
        }
      } catch (error) {
        if (this.#lost) this.#checkHeld();
        if (isNotFound(error)) throw new QueueError("QueueNotFound", `queue ${this.#queue} does not exist`);
        throw this.#deps.connection.failure(error, `receive from session ${this.sessionId}`);
      }
      const left = deadline - this.#deps.clock.now();
      if (received.length > 0 || left <= 0 || context.signal.aborted) return received;
      await sleep(this.#deps.clock, Math.min(left, SESSION_POLL_MS), context.signal);
    }
  }

  /** How many messages of `brokerQueue` this session took back and has not handed out again. */
  keptOf(brokerQueue: string): number {
    return brokerQueue === this.#deps.names.session(this.#queue, this.sessionId) ? this.#returned.length : 0;
  }

  /** Removes the messages of `brokerQueue` this session took back (a purge); resolves how many. */
  dropKept(brokerQueue: string): number {
    const kept = this.keptOf(brokerQueue);
    for (const { message } of this.#returned.splice(0, kept)) this.#channel.ack(message);
    return kept;
  }

  /** Takes a message back to be handed out again first; once the session is let go, its channel's end gave it back. */
  #keep(returned: Returned): void {
    if (this.#lost) {
      this.#channel.nack(returned.message, false, true);
      return;
    }
    this.#returned.push(returned);
    this.#returned.sort(byDeliveryTag);
  }

  /** A held message of this session stopped being held; a borrowed session ends with its last one. */
  async #release(id: string | undefined): Promise<void> {
    if (id !== undefined) this.#held.delete(id);
    if (this.#borrowed && this.#held.size === 0) await this.release();
  }

  completeMessage(receipt: ReceiptHandle, context: OperationContext): Promise<void> {
    return this.#deps.complete(receipt, context);
  }

  abandonMessage(receipt: ReceiptHandle, context: OperationContext): Promise<void> {
    return this.#deps.abandon(receipt, 0, context);
  }

  deadLetterMessage(
    receipt: ReceiptHandle,
    reason: string,
    description: string | undefined,
    context: OperationContext,
  ): Promise<void> {
    return this.#deps.deadLetter(receipt, reason, description, context);
  }

  async renewSessionLock(): Promise<Date> {
    this.#checkHeld();
    try {
      // The session's queue is gone when its queue was deleted: so is the session.
      await this.#channel.checkQueue(this.#deps.names.session(this.#queue, this.sessionId));
    } catch (error) {
      await this.release();
      if (isNotFound(error) || this.#lost) this.#checkHeld();
      throw this.#deps.connection.failure(error, `renew session ${this.sessionId}`);
    }
    this.#expiresAt = this.#deps.clock.now() + this.#lockDurationMs;
    this.#arm();
    // A session's messages are locked with it.
    for (const id of this.#held) this.#deps.extend(id, this.#expiresAt);
    return this.sessionExpiresAt;
  }

  async getSessionState(): Promise<Uint8Array | null> {
    this.#checkHeld();
    const state = this.#deps.names.sessionState(this.#queue, this.sessionId);
    try {
      // A channel of its own: a state never set has no queue, and the 404 closes the channel.
      return await this.#deps.connection.withChannel(async (channel) => {
        const got = await channel.get(state, { noAck: false });
        if (got === false) return null;
        channel.nack(got, false, true);
        if (got.properties.headers?.[STATE_CLEARED] === true) return null;
        return Uint8Array.from(got.content);
      });
    } catch (error) {
      if (isNotFound(error)) return null;
      throw this.#deps.connection.failure(error, `read the state of session ${this.sessionId}`);
    }
  }

  async setSessionState(state: Uint8Array | null): Promise<void> {
    this.#checkHeld();
    const stateQueue = this.#deps.names.sessionState(this.#queue, this.sessionId);
    try {
      await this.#deps.connection.withChannel((channel) => declareSessionState(channel, stateQueue));
    } catch (error) {
      throw this.#deps.connection.failure(error, `store the state of session ${this.sessionId}`);
    }
    const publisher = await this.#deps.connection.publisher();
    // The state queue keeps one message: the newest pushes the one before out.
    await publisher.publish(stateQueue, state === null ? Buffer.alloc(0) : Buffer.from(state), {
      persistent: true,
      headers: state === null ? { [STATE_CLEARED]: true } : {},
    });
  }

  async closeSession(): Promise<void> {
    await this.release();
  }

  /** Gives back every message still held and lets the lock go. */
  async release(): Promise<void> {
    await this.#letGo(true);
  }

  /** Lets the lock go with the session's queue deleted: what it holds is gone with the queue. */
  async drop(): Promise<void> {
    await this.#letGo(false);
  }

  async #letGo(giveBack: boolean): Promise<void> {
    if (this.#lost) return;
    this.#end();
    if (giveBack) await this.#giveBackHeld();
    else {
      for (const id of this.#held) this.#deps.take(id);
      this.#held.clear();
      this.#returned.length = 0;
    }
    await this.#unlock();
    // Only now may this client take the session again: its lock queue is gone.
    this.#ended(this);
  }

  /** Puts what the session holds or took back ahead of the rest of its queue, in order, for its next holder. */
  async #giveBackHeld(): Promise<void> {
    const held: Returned[] = [];
    for (const id of this.#held) {
      const taken = this.#deps.take(id);
      if (taken !== undefined) held.push({ message: taken.message, deliveries: taken.deliveryCount });
    }
    this.#held.clear();
    const all = [...this.#returned.splice(0), ...held].sort(byDeliveryTag);
    if (all.length === 0) return;
    const brokerQueue = this.#deps.names.session(this.#queue, this.sessionId);
    const { maxDeliveryCount, deadLetterQueue } = this.#record;
    // A return that uses the last delivery dead-letters the message, as the broker does.
    const spent = ({ deliveries }: Returned) =>
      maxDeliveryCount !== null && deadLetterQueue !== null && deliveries >= maxDeliveryCount;
    try {
      for (const returned of all.filter(spent)) {
        await this.#deps.deadLetterSpent(this.#record, returned.message);
        this.#channel.ack(returned.message);
      }
      const first = all.filter((returned) => !spent(returned));
      await putBackFirst(this.#channel, await this.#deps.connection.publisher(), brokerQueue, first);
    } catch {
      // The channel or the broker is gone: the broker took back what the channel held.
    }
  }

  /** Deletes the lock queue (which the connection would otherwise keep) and closes the session's channel. */
  async #unlock(): Promise<void> {
    const lock = this.#deps.names.sessionLock(this.#queue, this.sessionId);
    try {
      await this.#channel.deleteQueue(lock);
    } catch {
      await this.#deps.connection.withChannel((channel) => channel.deleteQueue(lock)).catch(() => undefined);
    }
    await this.#channel.close().catch(() => undefined);
  }

  #end(): void {
    if (this.#lost) return;
    this.#lost = true;
    this.#timer?.cancel();
  }
}
