import { EventEmitter } from "node:events";
import { onAbort } from "../abort-watch.js";
import { type Clock, sleep } from "../clock.js";
import { QueueError, type QueueErrorCode, toQueueError } from "../errors.js";
import type { ReceivedMessage } from "../message.js";
import type { QueueClient, SessionClient } from "../queue-client.js";
import type { ClientTelemetry } from "../telemetry/client-telemetry.js";
import { MAX_RECEIVE_COUNT } from "../validation.js";
import type { Consumer, ConsumerEvents, ConsumerMetrics, MessageHandler, StopOptions } from "./consumer.js";
import { DeadLetterError } from "./dead-letter-error.js";
import { COMPLETE, HeldMessage, type Holder, halfwayTo, type Outcome } from "./held-message.js";
import { type Kept, LockKeeper } from "./lock-keeper.js";
import { type ConsumerSettings, retryDelay } from "./options.js";
import { RateLimiter } from "./rate-limiter.js";
import { checkSchema } from "./schema-check.js";

/** How long `stop()` lets running handlers finish by default. */
export const DEFAULT_STOP_TIMEOUT_MS = 30_000;

/** Codes that say a lock is no longer ours: another receiver may hold the message now. */
export const LOCK_LOST: ReadonlySet<QueueErrorCode> = new Set([
  "InvalidReceipt",
  "SessionLockLost",
  "MessageNotFound",
]);

/** A renewal that failed for a passing reason is tried again this soon (or at a quarter of what is left of the lock). */
const RENEWAL_RETRY_MS = 1_000;

/** What a consumer needs of the client that made it. */
export interface ConsumerHost {
  readonly client: QueueClient;
  readonly clock: Clock;
  /** Where the `process` spans of its handlers and their durations go. */
  readonly telemetry: ClientTelemetry;
  /** Told once the consumer has stopped, so the client no longer waits for it at close. */
  readonly stopped: (consumer: Consumer) => void;
}

/**
 * What every consumer shares: its lifecycle (running, stop, dispose), its metrics and events,
 * the locks it keeps, and how a held message is settled once, whoever settles it.
 */
export abstract class BaseConsumer<Handler = MessageHandler>
  extends EventEmitter<ConsumerEvents>
  implements Consumer, Holder
{
  readonly queue: string;
  readonly metrics: ConsumerMetrics = {
    received: 0,
    completed: 0,
    abandoned: 0,
    deadLettered: 0,
    failed: 0,
    lockRenewals: 0,
    locksLost: 0,
  };
  protected readonly client: QueueClient;
  protected readonly handler: Handler;
  protected readonly clock: Clock;
  protected readonly settings: ConsumerSettings;
  protected readonly keeper: LockKeeper;
  protected readonly limiter: RateLimiter | undefined;
  protected readonly telemetry: ClientTelemetry;
  /** Aborted when `stop()` begins: ends the waits of receives and accepts at once. */
  protected readonly stopping = new AbortController();
  /** Whether locks are renewed at all: the provider can, and `maxLockRenewalMs` is not 0. */
  protected readonly renews: boolean;
  readonly #host: ConsumerHost;
  readonly #maxDelayMs: number;
  readonly #warned = new Set<string>();
  /** Read on every message: a field, not the stopping signal's getter. */
  #running = true;
  #tasks = 0;
  #drained: (() => void) | undefined;
  #stopped: Promise<void> | undefined;
  #idle = false;

  constructor(host: ConsumerHost, queue: string, handler: Handler, settings: ConsumerSettings) {
    super();
    this.handler = handler;
    this.#host = host;
    this.client = host.client;
    this.clock = host.clock;
    this.telemetry = host.telemetry;
    this.queue = queue;
    this.settings = settings;
    this.keeper = new LockKeeper(host.clock);
    this.limiter =
      settings.rateLimit === undefined ? undefined : new RateLimiter(settings.rateLimit, host.clock);
    const capabilities = host.client.capabilities;
    this.renews = capabilities.lockRenewal && settings.maxLockRenewalMs > 0;
    this.#maxDelayMs = capabilities.delayedDelivery ? capabilities.maxDelayMs : 0;
    if (settings.signal !== undefined) onAbort(settings.signal, () => void this.stop());
  }

  get running(): boolean {
    return this.#running;
  }

  /** Messages received and not yet settled or given back. */
  abstract get inFlight(): number;

  /** Starts the consumer's loops; called once, right after it is made. */
  abstract start(): void;

  /** Wakes whatever waits for room, so that the loops see the stop. */
  protected abstract wake(): void;

  /** Gives back at once what was received and not started. */
  protected abstract giveBackWaiting(): Promise<void>;

  stop(options?: StopOptions): Promise<void> {
    if (this.#stopped === undefined) {
      const timeoutMs = options?.timeoutMs ?? DEFAULT_STOP_TIMEOUT_MS;
      if (typeof timeoutMs !== "number" || !Number.isInteger(timeoutMs) || timeoutMs < 0)
        return Promise.reject(
          new QueueError(
            "Validation",
            `stop's timeoutMs must be a whole number of milliseconds, not ${String(timeoutMs)}`,
          ),
        );
      this.#stopped = this.#stop(timeoutMs);
    }
    return this.#stopped;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.stop();
  }

  async #stop(timeoutMs: number): Promise<void> {
    this.#running = false;
    this.stopping.abort(new QueueError("ClientClosed", `the consumer of ${this.queue} is stopping`));
    this.wake();
    await this.giveBackWaiting();
    if (this.#tasks > 0 && !(await this.#drainWithin(timeoutMs))) await this.abortRunning();
    this.keeper.clear();
    this.#host.stopped(this);
    this.emit("stopped");
  }

  /** Resolves true once every task ended, false if `timeoutMs` passed first. */
  #drainWithin(timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = this.clock.setTimer(() => resolve(false), timeoutMs);
      this.#drained = () => {
        timer.cancel();
        resolve(true);
      };
    });
  }

  /** Past the stop's timeout: aborts the signals of what still runs and gives its messages back. */
  protected async abortRunning(): Promise<void> {
    const error = new QueueError(
      "Timeout",
      `the consumer of ${this.queue} stopped before its handlers ended`,
    );
    const giving: Promise<void>[] = [];
    for (const kept of this.keeper.kept)
      if (kept instanceof HeldMessage && kept.claim()) {
        kept.run.abort(error);
        giving.push(this.settle(kept, { kind: "abandon", delayMs: 0 }));
      }
    await Promise.all(giving);
  }

  /** Counts a task (a loop or a handler run) that `stop()` waits for. */
  protected enter(): void {
    this.#tasks++;
  }

  /** A task ended. */
  protected leave(): void {
    if (--this.#tasks === 0) this.#drained?.();
  }

  /** Takes a received message into the consumer's hands: counted, and its lock kept. */
  protected hold(message: ReceivedMessage, session?: SessionClient): HeldMessage {
    const now = this.clock.now();
    // A session's messages live under the session's lock, which the session consumer keeps.
    const renewUntil =
      session === undefined && this.renews ? now + this.settings.maxLockRenewalMs : Number.NEGATIVE_INFINITY;
    const held = new HeldMessage(this, message, session, now, renewUntil);
    this.metrics.received++;
    this.#idle = false;
    this.keeper.add(held);
    return held;
  }

  /** Gives back at once a message no handler started, so that another consumer can take it. */
  protected async giveBack(held: HeldMessage): Promise<void> {
    if (held.claim()) await this.settle(held, { kind: "abandon", delayMs: 0 });
    this.release(held);
  }

  /** Lets go of a held message's lock-keeping: its handler ended or it was given back. */
  protected release(held: HeldMessage): void {
    this.keeper.remove(held);
  }

  /** Runs `handler` on one held message, then settles it as the handler's end says (unless someone did already). */
  protected async process(held: HeldMessage, handler: MessageHandler): Promise<void> {
    if (this.settings.schema !== undefined && !(await this.passesSchema(held))) return;
    if (!this.stillLocked(held)) return;
    this.startDeadline(held);
    const recorder = this.telemetry.active();
    const run = recorder === undefined ? undefined : recorder.startProcess(this.queue, [held.message]);
    let outcome = COMPLETE;
    try {
      await (run === undefined ? handler(held.message, held) : run.within(() => handler(held.message, held)));
      run?.end();
    } catch (error) {
      run?.end(error);
      if (!held.held) return;
      outcome = this.failure(error, held);
    }
    if (!held.claim()) return;
    // Settled within the process span, whose child the settle span is, though the span has ended.
    await (run === undefined ? this.settle(held, outcome) : run.within(() => this.settle(held, outcome)));
  }

  /**
   * True while `held` is ours to run: a message whose lock ended while it waited (nothing renewed
   * it) may be another receiver's now, so it is counted lost and left alone.
   */
  protected stillLocked(held: HeldMessage): boolean {
    if (!held.held) return false;
    // While renewals go on the keeper holds the lock (or finds it lost): no need to read the clock.
    if (held.renewAtMs < held.renewUntilMs || held.lockedUntilMs > this.clock.now()) return true;
    this.lose(
      held,
      new QueueError(
        "InvalidReceipt",
        `the lock of message ${held.message.messageId} ended before its handler started`,
      ),
    );
    return false;
  }

  /** Starts the handler's clock of `held`, when handlers have a timeout. */
  protected startDeadline(held: HeldMessage): void {
    const timeout = this.settings.handlerTimeoutMs;
    if (timeout === undefined) return;
    held.deadlineMs = this.clock.now() + timeout;
    this.keeper.update(held);
  }

  /** What a handler's throw makes of `held`: dead-lettered for a `DeadLetterError`, else abandoned with the retry delay. */
  protected failure(error: unknown, held: HeldMessage): Outcome {
    if (error instanceof DeadLetterError)
      return { kind: "deadLetter", reason: error.reason, description: error.description };
    this.metrics.failed++;
    this.emit("failed", error, held.message);
    return { kind: "abandon", delayMs: this.retryDelayOf(held) };
  }

  /** Checks `held`'s body against the schema; one that fails is dead-lettered and the handler never sees it. */
  protected async passesSchema(held: HeldMessage): Promise<boolean> {
    const result = await checkSchema(this.settings.schema!, held.message);
    if (result.ok) {
      held.setValue(result.value);
      return true;
    }
    if (held.claim())
      await this.settle(held, {
        kind: "deadLetter",
        reason: "SchemaValidationFailed",
        description: result.problems,
      });
    return false;
  }

  /** Settles `held` (already claimed) as `outcome` says; a failure is an `"error"` event. Never rejects. */
  protected settle(held: HeldMessage, outcome: Outcome): Promise<void> {
    return this.#apply(held, outcome).then(undefined, (error: unknown) => {
      const failure = toQueueError(error);
      if (LOCK_LOST.has(failure.code)) this.metrics.locksLost++;
      this.report(failure, held.message);
    });
  }

  async settleForHandler(held: HeldMessage, outcome: Outcome): Promise<void> {
    if (!held.claim()) throw notHeld(held);
    try {
      await this.#apply(held, outcome);
    } catch (error) {
      const failure = toQueueError(error);
      if (failure.code === "Validation") held.unclaim();
      else if (LOCK_LOST.has(failure.code)) this.metrics.locksLost++;
      throw failure;
    }
  }

  /** Sends `outcome` for `held` through its session or the client, and counts it once done. */
  #apply(held: HeldMessage, outcome: Outcome): Promise<void> {
    const receipt = held.message.receiptHandle;
    const session = held.session;
    switch (outcome.kind) {
      case "complete":
        return (
          session === undefined ? this.client.completeMessage(receipt) : session.completeMessage(receipt)
        ).then(this.#completed);
      case "abandon":
        if (session === undefined)
          return this.client
            .abandonMessage(receipt, outcome.delayMs === 0 ? undefined : { delayMs: outcome.delayMs })
            .then(this.#abandoned);
        return session.abandonMessage(receipt).then(() => {
          this.pauseSession(held, outcome.delayMs);
          this.metrics.abandoned++;
        });
      case "deadLetter":
        return (
          session === undefined
            ? this.client.deadLetterMessage(receipt, outcome.reason, outcome.description)
            : session.deadLetterMessage(receipt, outcome.reason, outcome.description)
        ).then(this.#deadLettered);
    }
  }

  // Counted once the provider said yes; made once per consumer, not per message.
  readonly #completed = (): void => {
    this.metrics.completed++;
  };
  readonly #abandoned = (): void => {
    this.metrics.abandoned++;
  };
  readonly #deadLettered = (): void => {
    this.metrics.deadLettered++;
  };

  /** A session's message was abandoned with a delay: its session waits that long before its next receive. */
  protected pauseSession(_held: HeldMessage, _delayMs: number): void {}

  async renewForHandler(held: HeldMessage): Promise<Date> {
    if (!held.held) throw notHeld(held);
    const lockedUntil = await this.#renewLockOf(held);
    this.#renewed(held, lockedUntil);
    return lockedUntil;
  }

  async renewOnTime(held: HeldMessage): Promise<void> {
    if (!held.held) {
      held.renewAtMs = Number.POSITIVE_INFINITY;
      return;
    }
    try {
      this.#renewed(held, await this.#renewLockOf(held));
    } catch (error) {
      if (!held.held) return;
      const failure = toQueueError(error);
      if (this.renewalFailed(held, failure, held.lockedUntilMs, held.message)) this.lose(held, failure);
    }
  }

  /**
   * Judges a failed renewal of `kept`, whose lock was known to end at `lockedUntilMs`: true when
   * the lock is gone (a lost-lock code, or its end has passed); otherwise the failure was a passing
   * one (the client already retried it), reported, and the renewal is tried again soon.
   */
  protected renewalFailed(
    kept: Kept,
    failure: QueueError,
    lockedUntilMs: number,
    message?: ReceivedMessage,
  ): boolean {
    const left = lockedUntilMs - this.clock.now();
    if (LOCK_LOST.has(failure.code) || left <= 0) return true;
    this.report(failure, message);
    kept.renewAtMs = this.clock.now() + Math.max(1, Math.min(RENEWAL_RETRY_MS, Math.floor(left / 4)));
    return false;
  }

  /** Renews the lock that covers `held`: its own, or its session's. */
  #renewLockOf(held: HeldMessage): Promise<Date> {
    return held.session === undefined
      ? this.client.renewMessageLock(held.message.receiptHandle)
      : held.session.renewSessionLock();
  }

  /** Counts a renewal of `held`'s lock, now good until `lockedUntil`, and schedules the next at half of it. */
  #renewed(held: HeldMessage, lockedUntil: Date): void {
    this.metrics.lockRenewals++;
    if (held.session === undefined) held.lockedUntilMs = lockedUntil.getTime();
    held.renewAtMs = halfwayTo(this.clock.now(), lockedUntil.getTime());
    this.keeper.update(held);
  }

  /** `held`'s lock is gone: its handler's signal aborts, and nobody settles it here any more. */
  protected lose(held: HeldMessage, error: QueueError): void {
    held.lose(error);
    held.renewAtMs = Number.POSITIVE_INFINITY;
    this.metrics.locksLost++;
    this.report(error, held.message);
  }

  async timedOut(held: HeldMessage): Promise<void> {
    if (!held.claim()) return;
    const error = this.timeoutError();
    held.run.abort(error);
    this.metrics.failed++;
    this.emit("failed", error, held.message);
    await this.settle(held, { kind: "abandon", delayMs: this.retryDelayOf(held) });
  }

  /** The error a handler's signal aborts with when it runs out of time. */
  protected timeoutError(): QueueError {
    return new QueueError(
      "Timeout",
      `a handler of ${this.queue} ran longer than ${this.settings.handlerTimeoutMs} ms`,
    );
  }

  /** The retry delay of a failed delivery of `held`, within what the provider can delay. */
  protected retryDelayOf(held: HeldMessage): number {
    return retryDelay(this.settings, held.deliveryCount, this.#maxDelayMs);
  }

  /** A receive found nothing: `"idle"` once, if nothing is held either. */
  protected noteEmpty(): void {
    if (this.#idle || this.inFlight > 0) return;
    this.#idle = true;
    this.emit("idle");
  }

  /** Waits after the `failures`th failure in a row of the consumer's own loop, or until it stops. */
  protected backOff(failures: number): Promise<void> {
    return sleep(
      this.clock,
      retryDelay(this.settings, failures, Number.POSITIVE_INFINITY),
      this.stopping.signal,
    );
  }

  /** Receives up to `max` messages of the queue, waiting as long as a receive may; `[]` when stopped. */
  protected receive(max: number): Promise<ReceivedMessage[]> {
    return this.client.receiveMessages(
      this.queue,
      Math.min(max, MAX_RECEIVE_COUNT),
      this.settings.receiveWaitMs,
      {
        signal: this.stopping.signal,
      },
    );
  }

  /**
   * Reports a failure of the consumer's own work as an `"error"` event. With no listener it
   * becomes a process warning, once per code, rather than the throw an unheard `"error"` is.
   */
  protected report(error: QueueError, message?: ReceivedMessage): void {
    if (this.listenerCount("error") > 0) {
      this.emit("error", error, message);
      return;
    }
    if (this.#warned.has(error.code)) return;
    this.#warned.add(error.code);
    process.emitWarning(`consumer of ${this.queue}: ${error.message} (listen for "error" to see every one)`, {
      code: `QUEUE_RUNTIME_CONSUMER_${error.code}`,
    });
  }
}

function notHeld(held: HeldMessage): QueueError {
  return new QueueError(
    "InvalidReceipt",
    `message ${held.message.messageId} is no longer this handler's: it was settled, given back, or its lock was lost`,
  );
}
