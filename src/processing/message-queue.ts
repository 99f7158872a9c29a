import { type Clock, systemClock } from "../core/clock.js";
import { QueueError } from "../core/errors.js";
import { Drain } from "./drain.js";
import type { MessageExtras } from "./message-extras.js";
import { ArrivalList, PendingList, StateList } from "./message-lists.js";
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
import { type MessageHandle, QueuedMessage } from "./queued-message.js";
import { RetryContext } from "./retry-context.js";
import { isRetryable } from "./retryable-error.js";
import { TickFrame } from "./tick-frame.js";
import { Ticker } from "./ticker.js";
import { type Expire, expireEnqueued, expireProcessing } from "./timeouts.js";

/** How many messages go through the state lists between two renewals of them (see #renewLists). */
const RENEW_LISTS_EVERY = 256;

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
  // Both state lists are replaced by fresh objects every few hundred messages (see #renewLists).
  #pending = new PendingList<QueuedMessage<T>>();
  /** Messages in progress whose processor call has returned, in order of start. */
  #inProgress = new StateList<QueuedMessage<T>>();
  /**
   * The innermost running tick, whose frames hold the messages whose processor call is running.
   * Most complete before that call returns, so they only enter the in-progress list if not.
   */
  #tick: TickFrame<T> | undefined = undefined;
  /** How many messages the queue holds: pending, starting or in the in-progress list. */
  #count = 0;
  /** Roughly how many messages went through the lists since they were renewed (see #renewLists). */
  #passedSinceRenewal = 0;
  /** Every message in order of arrival, kept only while an enqueue limit is set. */
  readonly #arrivals = new ArrivalList<MessageExtras<T>>();
  #maxEnqueuedTimeMs: number;
  #maxProcessingTimeMs: number;
  #maxRetryCount: number;
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
      () => !this.isEmpty(),
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
    // Without an enqueue limit nothing reads the time (see setMaxEnqueuedTimeMs).
    const enqueuedAt = this.#maxEnqueuedTimeMs > 0 ? this.#now() : undefined;
    const item = new QueuedMessage<T>(
      message,
      // The context is stored untyped and handed back to the same callback, so its type still holds.
      onCompleted as MessageProcessingCompleted<T, unknown> | undefined,
      context,
    );
    if (enqueuedAt !== undefined) this.#arrive(item, enqueuedAt);
    this.#pending.push(item);
    this.#count++;
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
    if (this.isEmpty()) return;
    const frame = new TickFrame(this.#tick);
    this.#tick = frame;
    try {
      this.#tickIn(frame);
    } finally {
      this.#tick = frame.outer;
    }
    if (frame.outer === undefined && this.#passedSinceRenewal >= RENEW_LISTS_EVERY) this.#renewLists();
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
    if (!drain || this.isEmpty()) {
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
   * Removes every in-progress, then every pending message (the seed's order), aborting its signal
   * and completing it with `Cancelled`; messages added by those callbacks are kept.
   */
  removeAll(): void {
    if (this.isEmpty()) return;
    // Taken first, so that what the Cancelled callbacks add stays; what they complete is skipped.
    const removed = [...this.#inProgressMessages()];
    for (let item = this.#pending.head; item !== undefined; item = item.next) removed.push(item);
    for (const item of removed) {
      if (item.isCompleted) continue;
      this.#leaveLists(item, undefined);
      this.#complete(item, MessageQueueResult.Cancelled, undefined);
    }
  }

  /** True when no message is pending or in progress. */
  isEmpty(): boolean {
    return this.#count === 0;
  }

  /** How many messages wait for a tick. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** How many messages the processor holds. */
  get inProgressCount(): number {
    return this.#count - this.#pending.size;
  }

  /**
   * Sets how long a message may stay in the queue, in ms (0 = no limit); checked from the next
   * tick. When a limit is set where there was none, every message already in the queue counts its
   * time from this call.
   */
  setMaxEnqueuedTimeMs(ms: number): void {
    this.#assertNotClosed();
    const limit = validateLimitMs("maxEnqueuedTimeMs", ms);
    const was = this.#maxEnqueuedTimeMs;
    if (limit > 0 && was === 0) {
      const now = this.#now();
      for (const item of this.#inProgressMessages()) this.#arrive(item, now);
      for (let item = this.#pending.head; item !== undefined; item = item.next) this.#arrive(item, now);
    } else if (limit === 0 && was > 0) {
      // Unlinked one by one, so no message keeps another alive through stale links.
      for (let extras = this.#arrivals.oldest; extras !== undefined; extras = this.#arrivals.oldest)
        this.#arrivals.remove(extras);
    }
    this.#maxEnqueuedTimeMs = limit;
  }

  /**
   * Sets how long one attempt may take, in ms (0 = no limit); checked from the next tick. When a
   * limit is set where there was none, every attempt already running counts its time from this call.
   */
  setMaxProcessingTimeMs(ms: number): void {
    this.#assertNotClosed();
    const limit = validateLimitMs("maxProcessingTimeMs", ms);
    if (limit > 0 && this.#maxProcessingTimeMs === 0) {
      const now = this.#now();
      for (const item of this.#inProgressMessages()) item.withExtras().processingStartedAt = now;
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

  // The tick itself, in `frame`, which is running before anything can call back into the queue.
  #tickIn(frame: TickFrame<T>): void {
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
    const pending = this.#pending;
    this.#passedSinceRenewal += pending.size;
    const round = pending.beginRound();
    for (let item = pending.takeNext(round); item !== undefined; item = pending.takeNext(round))
      this.#startAttempt(item, now, frame);
  }

  // Every message passes through the ends of both lists, and storing a young object into an old
  // one costs a write barrier: a list object that lives across many ticks is old. A fresh one
  // stays young; the messages do not point back to it, so moving them over is O(1). Only the
  // outermost tick does it (an inner one would pull the list from under the outer one's round),
  // and only every few hundred messages, so that ticks of a message or two do not pay for it.
  #renewLists(): void {
    this.#passedSinceRenewal = 0;
    const pending = new PendingList<QueuedMessage<T>>();
    pending.takeOver(this.#pending);
    this.#pending = pending;
    const inProgress = new StateList<QueuedMessage<T>>();
    inProgress.takeOver(this.#inProgress);
    this.#inProgress = inProgress;
  }

  // Every message in progress: the listed ones in order of start, then the starting ones.
  *#inProgressMessages(): Generator<QueuedMessage<T>> {
    for (let item = this.#inProgress.head; item !== undefined; item = item.next) yield item;
    const starting: QueuedMessage<T>[] = [];
    for (let frame = this.#tick; frame !== undefined; frame = frame.outer)
      if (frame.calling?.isStarting) starting.unshift(frame.calling);
    yield* starting;
  }

  #assertNotClosed(): void {
    if (this.#phase === "Closed") throw new QueueError("ClientClosed", "the queue is stopped");
  }

  // Stamps `item` with the time it counts as enqueued and appends it to the arrival list.
  #arrive(item: QueuedMessage<T>, now: number): void {
    const extras = item.withExtras();
    extras.enqueuedAt = now;
    this.#arrivals.push(extras);
  }

  // `now` is the tick's time, read only when a limit is set. What most messages never need is in
  // methods of its own, so that V8 can inline the whole common path into the tick.
  #startAttempt(item: QueuedMessage<T>, now: number | undefined, frame: TickFrame<T>): void {
    const attempt = item.startAttempt();
    frame.calling = item;
    let returned: unknown;
    try {
      // Checked per message: a processor may set the limit during the tick.
      if (this.#maxProcessingTimeMs > 0 || item.extras !== undefined) this.#stampStart(item, now);
      // `complete` is bound to this message and attempt number: once the attempt has ended, it
      // does nothing. A bound function needs no closure context, and when the processor is inlined
      // V8 does not allocate it at all. The first attempt's context is the message itself.
      returned =
        attempt === 1
          ? this.#process(item.message, this.#completeAttempt.bind(this, item, 1), item)
          : this.#processRetry(item, attempt);
    } catch (error) {
      this.#attemptFailed(item, attempt, error);
    }
    frame.calling = undefined;
    if (item.isStarting) this.#list(item);
    if (returned !== undefined) this.#follow(item, attempt, returned);
  }

  // Records when the attempt starts while a processing limit is set, and forgets an earlier
  // attempt's start otherwise. The seed fails a message whose start time cannot be read with
  // Error, which is what a throw here does.
  #stampStart(item: QueuedMessage<T>, now: number | undefined): void {
    item.withExtras().processingStartedAt = this.#maxProcessingTimeMs > 0 ? (now ?? this.#now()) : undefined;
  }

  #processRetry(item: QueuedMessage<T>, attempt: number): unknown {
    return this.#process(
      item.message,
      this.#completeAttempt.bind(this, item, attempt),
      new RetryContext(item, attempt),
    );
  }

  // Moves a starting message into the in-progress list, at its place in order of start: only a
  // tick run by a processor can have listed messages that started later.
  #list(item: QueuedMessage<T>): void {
    item.markListed();
    const startedAt = item.extras?.processingStartedAt;
    let anchor = this.#inProgress.tail;
    if (startedAt !== undefined)
      while (anchor !== undefined && (anchor.extras?.processingStartedAt ?? startedAt) > startedAt)
        anchor = anchor.prev;
    this.#inProgress.insertAfter(item, anchor);
  }

  // Takes a message in progress out of the in-progress list, unless it is still starting.
  #leaveProgress(item: QueuedMessage<T>): void {
    if (!item.isStarting) this.#inProgress.remove(item);
  }

  // A processor's Promise completes its attempt, unless `complete` was called first; any other
  // value it returns is ignored.
  #follow(item: QueuedMessage<T>, attempt: number, returned: unknown): void {
    if (typeof returned !== "object" || returned === null || !("then" in returned)) return;
    const then: unknown = returned.then;
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
    if (item.isRunning(attempt))
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
    // Success, the common case, is checked first: the full check then stays out of the hot path.
    if (result !== MessageQueueResult.Success && !isMessageQueueResult(result)) throw invalidResult(result);
    if (!item.isRunning(attempt)) return;
    this.#leaveProgress(item);
    if (result === MessageQueueResult.RetryableError) this.#retry(item, reason);
    else this.#complete(item, result, reason);
  }

  // Sends a message whose attempt failed with RetryableError back to pending, or ends it with
  // Error once its retries are used up.
  #retry(item: QueuedMessage<T>, reason: unknown): void {
    if (item.attempts <= this.#maxRetryCount) {
      item.backToPending();
      this.#pending.push(item);
    } else this.#complete(item, MessageQueueResult.Error, reason);
  }

  readonly #expire: Expire<T> = (item, reason) => {
    this.#leaveLists(item, reason);
    this.#complete(item, MessageQueueResult.Timeout, reason);
  };

  // The seed fails each message of the tick with Error when the time cannot be read.
  #failPending(clockFailure: unknown): void {
    const pending = this.#pending;
    const round = pending.beginRound();
    for (let item = pending.takeNext(round); item !== undefined; item = pending.takeNext(round))
      this.#complete(item, MessageQueueResult.Error, clockFailure);
  }

  // Takes a message out of its state list and aborts its signal: it ends without completing.
  #leaveLists(item: QueuedMessage<T>, abortReason: unknown): void {
    if (item.isPending) this.#pending.remove(item);
    else this.#leaveProgress(item);
    item.withExtras().abort(abortReason);
  }

  // Ends `item`, which is in neither state list any more, and runs its completion callback.
  #complete(item: QueuedMessage<T>, result: MessageQueueResult, reason: unknown): void {
    item.markCompleted();
    this.#count--;
    if (this.#maxEnqueuedTimeMs > 0) this.#arrivals.remove(item.extras!);
    const onCompleted = item.onCompleted;
    if (onCompleted !== undefined) {
      try {
        onCompleted(item.message, result, reason, item.context);
      } catch (error) {
        this.#reportCallbackError(error, item.message);
      }
    }
    if (this.isEmpty()) this.#becameEmpty();
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

function invalidResult(result: unknown): QueueError {
  return new QueueError("Validation", `complete() needs a MessageQueueResult, got ${String(result)}`);
}

function warnCallbackError(error: unknown): void {
  process.emitWarning(error instanceof Error ? error : String(error), {
    code: "QUEUE_RUNTIME_CALLBACK_ERROR",
  });
}
