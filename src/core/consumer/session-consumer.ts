import { sleep } from "../clock.js";
import { type QueueError, toQueueError } from "../errors.js";
import type { ReceivedMessage } from "../message.js";
import type { SessionClient } from "../session-client.js";
import { BaseConsumer, LOCK_LOST } from "./base-consumer.js";
import { HeldMessage, halfwayTo } from "./held-message.js";
import type { Kept } from "./lock-keeper.js";

/**
 * `client.consumeSessions()`: up to `maxConcurrentSessions` sessions held at once, each running
 * its messages one at a time in order, its lock renewed while it is held.
 */
export class SessionConsumer extends BaseConsumer {
  readonly #held = new Set<HeldSession>();
  #inFlight = 0;

  get inFlight(): number {
    return this.#inFlight;
  }

  start(): void {
    for (let i = 0; i < this.settings.concurrency; i++) void this.#acceptLoop();
  }

  // Accepts and receives wait on the stopping signal, which stop() aborts: nothing else waits.
  protected wake(): void {}

  protected async giveBackWaiting(): Promise<void> {
    await Promise.all([...this.#held].map((held) => this.#giveBackPending(held)));
  }

  protected override async abortRunning(): Promise<void> {
    await super.abortRunning();
    // Handlers that outlived the stop no longer hold their sessions: another consumer may take them now.
    await Promise.all([...this.#held].map((held) => this.#close(held)));
  }

  protected override pauseSession(held: HeldMessage, delayMs: number): void {
    for (const session of this.#held)
      if (session.session === held.session) {
        session.abandoned = true;
        session.abandonedId = held.message.messageId;
        session.pauseMs = Math.max(session.pauseMs, delayMs);
      }
  }

  /** One of `maxConcurrentSessions` loops: accepts the next free session, holds it while it has messages, again. */
  async #acceptLoop(): Promise<void> {
    this.enter();
    let failures = 0;
    try {
      while (this.running) {
        let session: SessionClient;
        try {
          session = await this.client.acceptSession(this.queue, undefined, this.settings.receiveWaitMs, {
            signal: this.stopping.signal,
          });
          failures = 0;
        } catch (error) {
          const failure = toQueueError(error);
          if (!this.running || failure.code === "ClientClosed") break;
          if (failure.code === "NoSessionAvailable") {
            this.noteEmpty();
            continue;
          }
          this.report(failure);
          await this.backOff(++failures);
          continue;
        }
        await this.#hold(new HeldSession(this, session, this.renews, this.clock.now()));
      }
    } finally {
      this.leave();
    }
  }

  async #hold(held: HeldSession): Promise<void> {
    this.#held.add(held);
    this.keeper.add(held);
    try {
      while (this.running && !held.lost) {
        // After an abandon the messages still pending stay held (giving them back would count a
        // delivery against each): one receive brings back the abandoned one, which goes first.
        const resuming = held.pending.length > 0;
        let messages: ReceivedMessage[];
        try {
          messages = await held.session.receiveMessages(
            resuming ? 1 : this.settings.prefetch,
            resuming ? 0 : this.settings.sessionIdleTimeoutMs,
            { signal: this.stopping.signal },
          );
        } catch (error) {
          const failure = toQueueError(error);
          if (LOCK_LOST.has(failure.code)) this.loseSession(held, failure);
          else if (this.running) this.report(failure);
          break;
        }
        if (messages.length === 0 && !resuming) break;
        const holds = messages.map((message) => this.hold(message, held.session));
        this.#inFlight += holds.length;
        if (!resuming) held.pending.push(...holds);
        else if (holds[0]?.message.messageId === held.abandonedId) held.pending.unshift(holds[0]!);
        else {
          // The abandoned message did not come first (an SQS group stays blocked while any of its
          // messages is in flight; it may have been dead-lettered): all goes back, to come in order.
          held.pending.push(...holds);
          await this.#giveBackPending(held);
          continue;
        }
        await this.#runPending(held);
        if (held.pauseMs > 0 && this.running) await sleep(this.clock, held.pauseMs, this.stopping.signal);
        held.pauseMs = 0;
      }
    } finally {
      this.keeper.remove(held);
      await this.#giveBackPending(held);
      await this.#close(held);
      this.#held.delete(held);
    }
  }

  /** Runs the session's received messages in order; stops at one given back, so that none overtakes it. */
  async #runPending(held: HeldSession): Promise<void> {
    held.abandoned = false;
    while (held.pending.length > 0 && this.running && !held.lost && !held.abandoned) {
      const wait = this.limiter?.tryStart() ?? 0;
      if (wait > 0) {
        await sleep(this.clock, wait, this.stopping.signal);
        continue;
      }
      const message = held.pending.shift()!;
      held.renewUntilMs = held.renews
        ? this.clock.now() + this.settings.maxLockRenewalMs
        : Number.NEGATIVE_INFINITY;
      this.keeper.update(held);
      try {
        await this.process(message, this.handler);
      } finally {
        held.renewUntilMs = held.renews ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
        this.keeper.update(held);
        this.release(message);
        this.#inFlight--;
      }
    }
  }

  /** Abandons, last first, what the session received and did not start, so that it comes again in order. */
  async #giveBackPending(held: HeldSession): Promise<void> {
    const pending = held.pending.splice(0);
    for (const message of pending.reverse()) {
      await this.giveBack(message);
      this.#inFlight--;
    }
  }

  async #close(held: HeldSession): Promise<void> {
    if (held.lost) return;
    try {
      await held.session.closeSession();
    } catch (error) {
      if (this.running) this.report(toQueueError(error));
    }
  }

  /** Renews a held session's lock on time; never rejects. */
  async renewSession(held: HeldSession): Promise<void> {
    try {
      const expiresAt = await held.session.renewSessionLock();
      this.metrics.lockRenewals++;
      held.renewAtMs = halfwayTo(this.clock.now(), expiresAt.getTime());
    } catch (error) {
      const failure = toQueueError(error);
      if (this.renewalFailed(held, failure, held.session.sessionExpiresAt.getTime()))
        this.loseSession(held, failure);
    }
  }

  /** The session's lock is gone: its running handler's signal aborts, and none of its messages is settled here. */
  loseSession(held: HeldSession, error: QueueError): void {
    if (held.lost) return;
    held.lost = true;
    held.renewAtMs = Number.POSITIVE_INFINITY;
    this.metrics.locksLost++;
    for (const kept of this.keeper.kept)
      if (kept instanceof HeldMessage && kept.session === held.session) kept.lose(error);
    for (const message of held.pending) message.lose(error);
    this.report(error);
  }
}

/** A session the consumer holds: its lock, kept by the keeper, and what it received and has not run. */
class HeldSession implements Kept {
  readonly session: SessionClient;
  readonly renews: boolean;
  readonly pending: HeldMessage[] = [];
  renewAtMs: number;
  renewUntilMs: number;
  deadlineMs = Number.POSITIVE_INFINITY;
  renewing = false;
  lost = false;
  /** Its running message was abandoned: the rest waits, so that nothing overtakes it. */
  abandoned = false;
  /** The id of the message last abandoned, which the next receive must bring back first. */
  abandonedId: string | undefined;
  /** How long to wait before the next receive: the delay of an abandon. */
  pauseMs = 0;
  readonly #consumer: SessionConsumer;

  constructor(consumer: SessionConsumer, session: SessionClient, renews: boolean, nowMs: number) {
    this.#consumer = consumer;
    this.session = session;
    this.renews = renews;
    this.renewUntilMs = renews ? Number.POSITIVE_INFINITY : Number.NEGATIVE_INFINITY;
    this.renewAtMs = halfwayTo(nowMs, session.sessionExpiresAt.getTime());
  }

  renew(): Promise<void> {
    return this.#consumer.renewSession(this);
  }

  expire(): Promise<void> {
    return Promise.resolve();
  }
}
