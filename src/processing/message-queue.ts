import { type Clock, systemClock } from "../core/clock.js";
import { QueueError } from "../core/errors.js";
import { AttemptContext } from "./attempt-context.js";
import { Drain } from "./drain.js";
import { ArrivalList, StateList } from "./message-lists.js";
import { isMessageQueueResult, type MessageOutcome, MessageQueueResult } from "./message-queue-result.js";
import {
  DEFAULT_INTERVAL_MS,
  type MessageProcessingCompleted,
  type MessageQueueOptions,
  type MessageQueueSettings,
  type ProcessMessage,
  resolveOptions,
  resolveStartOptions,
  resolveStopOptions,
  type StartOptions,
  type StopOptions,
  validateLimitMs,
  validateRetryCount,
} from "./options.js";
import { type MessageHandle, MessageState, QueuedMessage } from "./queued-message.js";
import { isRetryable } from "./retryable-error.js";
import { Ticker } from "./ticker.js";
import { type Expire, expireEnqueued, expireProcessing } from "./timeouts.js";

/** Open takes messages; Draining finishes what it holds; Closed holds nothing and takes nothing. */
type Phase = "Open" | "Draining" | "Closed";

/**
 * An in-process work queue that retries: messages wait in a pending list, each tick (`doWork`)
 * first times out what stayed too long, then hands every pending message to the processor and
 * tracks it as in progress until the processor completes it. Every added message gets exactly
 * one completion callback: `Success`, `Error`, `Timeout` or `Cancelled`.
 */
export class MessageQueue<T> {
  readonly #process: ProcessMessage<T>;
  readonly #clock: Clock;
  readonly #onCallbackError: (error: unknown, message: T) => void;
  readonly #pending = new StateList<QueuedMessage<T>>();
  readonly #inProgress = new StateList<QueuedMessage<T>>();
  readonly #arrivals = new ArrivalList<QueuedMessage<T>>();
  #maxEnqueuedTimeMs: number;
  #maxProcessingTimeMs: number;
  #maxRetryCount: number;
  #pendingTickets = 0;
  #arrivalTickets = 0;
  #phase: Phase = "Open";
  readonly #ticker: Ticker;
  #drain: Drain | undefined = undefined;

  /** Creates an empty queue; throws `Validation` when `onProcessMessage` or a setting is missing or wrong. */
  constructor(options: MessageQueueOptions<T>) {
    const settings = resolveOptions(options);
    this.#process = options.onProcessMessage;
    this.#clock = options.clock ?? systemClock;
    this.#onCallbackError = options.onCallbackError ?? warnCallbackError;
    this.#maxEnqueuedTimeMs = settings.maxEnqueuedTimeMs;
    this.#maxProcessingTimeMs = settings.maxProcessingTimeMs;
    this.#maxRetryCount = settings.maxRetryCount;
    this.#ticker = new Ticker(
      this.#clock,
      () => this.doWork(),
      () => this.#arrivals.size > 0,
    );
  }

  /**
   * Adds `message` as pending; `onCompleted(message, result, reason, context)` runs exactly once
   * when it is done. Throws `Validation` for a missing message or a non-function callback and
   * `ClientClosed` once `stop()` was called; a failed add leaves the queue unchanged.
   */
  add<C = undefined>(
    message: T,
    onCompleted?: MessageProcessingCompleted<T, C>,
    context?: C,
  ): MessageHandle<T> {
    if (this.#phase !== "Open")
      throw new QueueError("ClientClosed", "the queue is stopped: it takes no messages");
    if (message === undefined || message === null)
      throw new QueueError("Validation", "a message is required (undefined and null are not messages)");
    if (onCompleted !== undefined && typeof onCompleted !== "function")
      throw new QueueError("Validation", "onCompleted must be a function");
    const item = new QueuedMessage<T>(
      message,
      // Without an enqueue limit nothing reads the time, so it is not asked for (see setMaxEnqueuedTimeMs).
      this.#maxEnqueuedTimeMs > 0 ? this.#now() : undefined,
      ++this.#arrivalTickets,
      // The context is stored untyped and handed back to the same callback, so its type still holds.
      onCompleted as MessageProcessingCompleted<T, unknown> | undefined,
      context,
    );
    this.#arrivals.push(item);
    this.#enterPending(item);
    this.#ticker.schedule();
    return item;
  }

  /** Adds `message` and resolves with its final `{ result, reason }`; rejects as `add()` throws. */
  addAsync(message: T): Promise<MessageOutcome> {
    return new Promise((resolve, reject) => {
      try {
        this.add(message, resolveOutcome, resolve);
      } catch (error) {
        reject(error);
      }
    });
  }

  /**
   * One tick: times out messages past `maxEnqueuedTimeMs` (pending or in progress) and attempts
   * past `maxProcessingTimeMs`, then hands every message that was pending when the tick began to
   * the processor. Messages added or sent back for a retry during the tick wait for the next one.
   */
  doWork(): void {
    if (this.#arrivals.size === 0) return;
    let now: number | undefined;
    if (this.#maxEnqueuedTimeMs > 0 || this.#maxProcessingTimeMs > 0) {
      try {
        now = this.#now();
      } catch (clockFailure) {
        this.#failPending(clockFailure);
        return;
      }
      if (this.#maxEnqueuedTimeMs > 0)
        expireEnqueued(this.#arrivals, now, () => this.#maxEnqueuedTimeMs, this.#expire);
      if (this.#maxProcessingTimeMs > 0)
        expireProcessing(this.#inProgress, now, () => this.#maxProcessingTimeMs, this.#expire);
    }
    // Only a processing limit needs the start time: without one, no number is stored per attempt.
    const startedAt = this.#maxProcessingTimeMs > 0 ? now : undefined;
    const lastTicket = this.#pendingTickets;
    for (
      let item = this.#pending.head;
      item !== undefined && item.pendingTicket <= lastTicket;
      item = this.#pending.head
    ) {
      this.#pending.remove(item);
      this.#startAttempt(item, startedAt);
    }
  }

  /**
   * Ticks every `intervalMs` (default 100) on the queue's clock while it holds messages; an idle
   * queue holds no timer. Calling it again changes the interval. Throws `ClientClosed` after `stop()`.
   */
  start(options: StartOptions = {}): void {
    const intervalMs = resolveStartOptions(options);
    if (this.#phase !== "Open") throw new QueueError("ClientClosed", "a stopped queue cannot start again");
    this.#ticker.start(intervalMs);
  }

  /**
   * Stops the queue for good (the seed's destroy): it takes no more messages. Without `drain`,
   * every pending and in-progress message is cancelled at once. With `drain`, ticking goes on
   * (at the `start()` interval, or 100 ms) until every message has completed, retries included,
   * or until `timeoutMs` passes, when the rest is cancelled. Resolves when the queue is empty and
   * holds no timer; calling it again returns the same wait, or cancels the rest when `drain` is false.
   */
  stop(options: StopOptions = {}): Promise<void> {
    const { drain, timeoutMs } = resolveStopOptions(options);
    if (this.#phase === "Closed") return Promise.resolve();
    const running = this.#drain;
    if (this.#phase === "Draining" && running !== undefined) {
      if (!drain) this.removeAll();
      return running.done;
    }
    if (!drain || this.#arrivals.size === 0) {
      this.#phase = "Closed";
      this.removeAll();
      this.#ticker.cancel();
      return Promise.resolve();
    }
    this.#phase = "Draining";
    const draining = new Drain(this.#clock, timeoutMs, () => this.removeAll());
    this.#drain = draining;
    this.#ticker.start(this.#ticker.intervalMs ?? DEFAULT_INTERVAL_MS);
    this.doWork();
    return draining.done;
  }

  /**
   * Removes every pending and in-progress message, aborting its signal and completing it with
   * `Cancelled`; messages added by those callbacks are kept.
   */
  removeAll(): void {
    const lastTicket = this.#arrivalTickets;
    for (
      let item = this.#arrivals.oldest;
      item !== undefined && item.arrivalTicket <= lastTicket;
      item = this.#arrivals.oldest
    ) {
      this.#leaveLists(item, undefined);
      this.#complete(item, MessageQueueResult.Cancelled, undefined);
    }
  }

  /** True when no message is pending or in progress. */
  isEmpty(): boolean {
    return this.#arrivals.size === 0;
  }

  /** How many messages wait for a tick. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** How many messages the processor holds. */
  get inProgressCount(): number {
    return this.#inProgress.size;
  }

  /**
   * Sets how long a message may stay in the queue, in ms (0 = no limit); checked from the next
   * tick. Messages added while there was no limit count their time from this call.
   */
  setMaxEnqueuedTimeMs(ms: number): void {
    this.#assertNotClosed();
    const limit = validateLimitMs("maxEnqueuedTimeMs", ms);
    if (limit > 0 && this.#maxEnqueuedTimeMs === 0) {
      const now = this.#now();
      for (let item = this.#arrivals.oldest; item !== undefined; item = item.newer) item.enqueuedAt ??= now;
    }
    this.#maxEnqueuedTimeMs = limit;
  }

  /**
   * Sets how long one attempt may take, in ms (0 = no limit); checked from the next tick.
   * Attempts started while there was no limit count their time from this call.
   */
  setMaxProcessingTimeMs(ms: number): void {
    this.#assertNotClosed();
    const limit = validateLimitMs("maxProcessingTimeMs", ms);
    if (limit > 0 && this.#maxProcessingTimeMs === 0) {
      const now = this.#now();
      for (let item = this.#inProgress.head; item !== undefined; item = item.next)
        item.processingStartedAt ??= now;
    }
    this.#maxProcessingTimeMs = limit;
  }

  /** Sets how many retries a `RetryableError` gets; applies to completions from now on. */
  setMaxRetryCount(count: number): void {
    this.#assertNotClosed();
    this.#maxRetryCount = validateRetryCount(count);
  }

  /** A fresh, plain snapshot of the settings: `new MessageQueue({ ...snapshot, onProcessMessage })` recreates them. */
  retrieveOptions(): MessageQueueSettings {
    return {
      maxEnqueuedTimeMs: this.#maxEnqueuedTimeMs,
      maxProcessingTimeMs: this.#maxProcessingTimeMs,
      maxRetryCount: this.#maxRetryCount,
    };
  }

  #now(): number {
    try {
      return this.#clock.now();
    } catch (error) {
      throw new QueueError("Configuration", "the queue's clock failed to tell the time", { cause: error });
    }
  }

  #assertNotClosed(): void {
    if (this.#phase === "Closed") throw new QueueError("ClientClosed", "the queue is stopped");
  }

  #enterPending(item: QueuedMessage<T>): void {
    item.state = MessageState.Pending;
    item.pendingTicket = ++this.#pendingTickets;
    this.#pending.push(item);
  }

  #startAttempt(item: QueuedMessage<T>, startedAt: number | undefined): void {
    item.state = MessageState.InProgress;
    item.processingStartedAt = startedAt;
    const attempt = ++item.attempts;
    item.current = attempt;
    this.#inProgress.push(item);
    let returned: unknown;
    try {
      // `complete` is bound to this message and attempt number: once the attempt has ended, it does nothing.
      returned = this.#process(
        item.message,
        (result, reason) => this.#completeAttempt(item, attempt, result, reason),
        new AttemptContext(item, attempt),
      );
    } catch (error) {
      this.#attemptFailed(item, attempt, error);
      return;
    }
    if (typeof returned === "object" && returned !== null && "then" in returned)
      this.#follow(item, attempt, returned);
  }

  // A processor's Promise completes its attempt, unless `complete` was called first.
  #follow(item: QueuedMessage<T>, attempt: number, returned: object): void {
    const then: unknown = (returned as { then: unknown }).then;
    if (typeof then !== "function") return;
    try {
      then.call(
        returned,
        () => this.#completeAttempt(item, attempt, MessageQueueResult.Success, undefined),
        (error: unknown) => this.#attemptFailed(item, attempt, error),
      );
    } catch (error) {
      this.#attemptFailed(item, attempt, error);
    }
  }

  #attemptFailed(item: QueuedMessage<T>, attempt: number, error: unknown): void {
    if (item.current === attempt)
      this.#completeAttempt(
        item,
        attempt,
        isRetryable(error) ? MessageQueueResult.RetryableError : MessageQueueResult.Error,
        error,
      );
    // A failure after the queue aborted the message is the processor reacting to the abort.
    else if (!item.aborted) this.#reportCallbackError(error, item.message);
  }

  #completeAttempt(
    item: QueuedMessage<T>,
    attempt: number,
    result: MessageQueueResult,
    reason: unknown,
  ): void {
    if (!isMessageQueueResult(result))
      throw new QueueError("Validation", `complete() needs a MessageQueueResult, got ${String(result)}`);
    if (item.current !== attempt) return;
    item.current = 0;
    this.#inProgress.remove(item);
    let final = result;
    if (result === MessageQueueResult.RetryableError) {
      if (item.attempts <= this.#maxRetryCount) {
        this.#enterPending(item);
        return;
      }
      final = MessageQueueResult.Error;
    }
    this.#complete(item, final, reason);
  }

  readonly #expire: Expire<T> = (item, reason) => {
    this.#leaveLists(item, reason);
    this.#complete(item, MessageQueueResult.Timeout, reason);
  };

  // The seed fails each message of the tick with Error when the time cannot be read.
  #failPending(clockFailure: unknown): void {
    const lastTicket = this.#pendingTickets;
    for (
      let item = this.#pending.head;
      item !== undefined && item.pendingTicket <= lastTicket;
      item = this.#pending.head
    ) {
      this.#pending.remove(item);
      this.#complete(item, MessageQueueResult.Error, clockFailure);
    }
  }

  // Takes a message out of its state list and aborts its signal: it ends without completing.
  #leaveLists(item: QueuedMessage<T>, abortReason: unknown): void {
    if (item.current === 0) this.#pending.remove(item);
    else {
      item.current = 0;
      this.#inProgress.remove(item);
    }
    item.abort(abortReason);
  }

  #complete(item: QueuedMessage<T>, result: MessageQueueResult, reason: unknown): void {
    item.state = MessageState.Completed;
    this.#arrivals.remove(item);
    const onCompleted = item.onCompleted;
    if (onCompleted !== undefined) {
      try {
        onCompleted(item.message, result, reason, item.context);
      } catch (error) {
        this.#reportCallbackError(error, item.message);
      }
    }
    if (this.#arrivals.size === 0) this.#becameEmpty();
  }

  #becameEmpty(): void {
    this.#ticker.cancel();
    if (this.#phase !== "Draining") return;
    this.#phase = "Closed";
    this.#drain?.finish();
    this.#drain = undefined;
  }

  #reportCallbackError(error: unknown, message: T): void {
    try {
      this.#onCallbackError(error, message);
    } catch (reportFailure) {
      // The error handler itself failed: nothing is left to hand it to but the process.
      queueMicrotask(() => {
        throw reportFailure;
      });
    }
  }
}

function resolveOutcome<T>(
  _message: T,
  result: MessageQueueResult,
  reason: unknown,
  resolve: (outcome: MessageOutcome) => void,
): void {
  resolve({ result, reason });
}

function warnCallbackError(error: unknown): void {
  process.emitWarning(error instanceof Error ? error : String(error), {
    code: "QUEUE_RUNTIME_CALLBACK_ERROR",
  });
}
