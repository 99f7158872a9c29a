import type { Channel, Message } from "amqplib";
import { type Clock, sleep, type TimerHandle } from "../../core/clock.js";
import { QueueError } from "../../core/errors.js";
import type { ReceivedMessage } from "../../core/message.js";
import type { OperationContext, SessionProvider } from "../../core/provider.js";
import type { ReceiptHandle } from "../../core/receipt-handle.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import { isNotFound, type RabbitConnection } from "./connection.js";
import type { BrokerNames } from "./names.js";

/** How often a session receive that found nothing looks again, and an accept of the next session. */
export const SESSION_POLL_MS = 50;

/** The header that marks a cleared session state. */
const STATE_CLEARED = "qr-state-cleared";

/** What a session needs of its provider. */
export interface SessionDeps {
  readonly connection: RabbitConnection;
  readonly names: BrokerNames;
  readonly clock: Clock;
  /** Hands a delivery of `brokerQueue` out under a lock; undefined when it was dead-lettered or dropped instead. */
  handOut(
    queue: string,
    record: QueueRecord,
    brokerQueue: string,
    channel: Channel,
    message: Message,
    released: () => void,
  ): Promise<{ message: ReceivedMessage; id: string } | undefined>;
  /** Settles a receipt as the provider does. */
  complete(receipt: ReceiptHandle, context: OperationContext): Promise<void>;
  abandon(receipt: ReceiptHandle, delayMs: number, context: OperationContext): Promise<void>;
  deadLetter(
    receipt: ReceiptHandle,
    reason: string,
    description: string | undefined,
    context: OperationContext,
  ): Promise<void>;
  /** Gives back a held delivery by its receipt id. */
  giveBack(id: string): void;
}

/**
 * A locked session: an exclusive consumer on the session's lock queue, which the broker lets one
 * connection hold at a time and frees when that connection ends, so the lock holds across
 * processes. Messages are taken from the session's own queue with basic.get on the same channel,
 * one receive's worth at a time, so nothing is fetched that the holder did not ask for, and an
 * abandoned message (nack, requeue) comes back first, as a quorum queue serves returns first. The
 * provider ends the lock itself at `sessionExpiresAt` unless renewed. A borrowed session (a plain
 * receive of a FIFO queue) has no lock time of its own: it ends when its last message is settled.
 */
export class RabbitSession implements SessionProvider {
  readonly sessionId: string;
  readonly #deps: SessionDeps;
  readonly #queue: string;
  readonly #record: QueueRecord;
  readonly #channel: Channel;
  readonly #lockDurationMs: number;
  readonly #borrowed: boolean;
  readonly #held = new Set<string>();
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
    lockDurationMs: number | undefined,
    ended: (session: RabbitSession) => void,
  ) {
    this.#deps = deps;
    this.#queue = queue;
    this.sessionId = sessionId;
    this.#record = record;
    this.#channel = channel;
    this.#borrowed = lockDurationMs === undefined;
    this.#lockDurationMs = lockDurationMs ?? record.lockDurationMs;
    this.#ended = ended;
    this.#expiresAt = deps.clock.now() + this.#lockDurationMs;
    if (!this.#borrowed) this.#arm();
    channel.on("close", () => this.#end());
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
          const got = await this.#channel.get(brokerQueue, { noAck: false });
          if (got === false) break;
          const out = await this.#deps.handOut(
            this.#queue,
            this.#record,
            brokerQueue,
            this.#channel,
            got,
            () => this.#release(out?.id),
          );
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

  /** A held message of this session stopped being held; a borrowed session ends with its last one. */
  #release(id: string | undefined): void {
    if (id !== undefined) this.#held.delete(id);
    if (this.#borrowed && this.#held.size === 0) void this.release();
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
    this.#expiresAt = this.#deps.clock.now() + this.#lockDurationMs;
    if (!this.#borrowed) this.#arm();
    return this.sessionExpiresAt;
  }

  async getSessionState(): Promise<Uint8Array | null> {
    this.#checkHeld();
    const state = this.#deps.names.sessionState(this.#queue, this.sessionId);
    try {
      const got = await this.#channel.get(state, { noAck: false });
      if (got === false) return null;
      this.#channel.nack(got, false, true);
      if (got.properties.headers?.[STATE_CLEARED] === true) return null;
      return Uint8Array.from(got.content);
    } catch (error) {
      this.#checkHeld();
      throw this.#deps.connection.failure(error, `read the state of session ${this.sessionId}`);
    }
  }

  async setSessionState(state: Uint8Array | null): Promise<void> {
    this.#checkHeld();
    const publisher = await this.#deps.connection.publisher();
    // The state queue keeps one message: the newest pushes the one before out.
    await publisher.publish(
      this.#deps.names.sessionState(this.#queue, this.sessionId),
      state === null ? Buffer.alloc(0) : Buffer.from(state),
      { persistent: true, headers: state === null ? { [STATE_CLEARED]: true } : {} },
    );
  }

  async closeSession(): Promise<void> {
    await this.release();
  }

  /** Gives back every message still held and lets the lock go. */
  async release(): Promise<void> {
    if (this.#lost) return;
    this.#end();
    for (const id of [...this.#held]) this.#deps.giveBack(id);
    await this.#channel.close().catch(() => undefined);
  }

  #end(): void {
    if (this.#lost) return;
    this.#lost = true;
    this.#timer?.cancel();
    this.#ended(this);
  }
}
