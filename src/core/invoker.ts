import { setMaxListeners } from "node:events";
import type { Clock } from "./clock.js";
import { Deadlines } from "./deadlines.js";
import { QueueError, type QueueErrorCode, toQueueError } from "./errors.js";
import type { OperationContext } from "./provider.js";
import type { ClientMetrics } from "./queue-client.js";
import { type RetryListener, type RetryPolicy, retryAfterFailure } from "./retry.js";

/** Everything the standard clients add around one provider call. */
export interface InvokerSettings {
  readonly clock: Clock;
  readonly retryPolicy: RetryPolicy;
  /** The most one attempt may take, waits excluded. */
  readonly operationMs: number;
  readonly metrics: ClientMetrics;
  readonly onRetry?: RetryListener | undefined;
  /** The provider ends every call within its timeout by itself, so no deadline is raced against it. */
  readonly boundedCalls: boolean;
}

/**
 * Runs provider calls for a client: refuses them once the client is closed, gives each attempt a
 * deadline, repeats transient failures with backoff, and counts failures by code.
 */
export class Invoker {
  readonly #settings: InvokerSettings;
  readonly #deadlines: Deadlines;
  readonly #closing = new AbortController();
  readonly #context: OperationContext;
  readonly #following = new WeakMap<AbortSignal, OperationContext>();
  readonly #onRetry: RetryListener;

  constructor(settings: InvokerSettings) {
    this.#settings = settings;
    this.#deadlines = new Deadlines(settings.clock);
    // Every operation under way listens to this one signal (a provider's SDK adds a listener per
    // call), so any number of them is expected, not a leak.
    setMaxListeners(0, this.#closing.signal);
    this.#context = { signal: this.#closing.signal, timeoutMs: settings.operationMs };
    this.#onRetry = (error, attempt, delayMs) => {
      settings.metrics.retries++;
      settings.onRetry?.(error, attempt, delayMs);
    };
  }

  /** Aborted when the client closes. */
  get signal(): AbortSignal {
    return this.#closing.signal;
  }

  get closed(): boolean {
    return this.#closing.signal.aborted;
  }

  /** Fails with `ClientClosed` once the client is closed. */
  assertOpen(): void {
    if (this.#closing.signal.aborted) throw new QueueError("ClientClosed", "this client has been closed");
  }

  /**
   * Runs `call` with retry and, unless the provider bounds its own calls, a deadline of `waitMs`
   * plus the operation timeout per attempt. `what` names the operation in timeout errors;
   * `signal` lets the caller end a wait early; `answers` are transient codes that are the
   * operation's result (no session was free) and are reported rather than repeated.
   */
  async run<T>(
    what: string,
    call: (context: OperationContext) => Promise<T>,
    waitMs = 0,
    signal?: AbortSignal,
    answers?: ReadonlySet<QueueErrorCode>,
  ): Promise<T> {
    this.assertOpen();
    const context = this.#contextFollowing(signal);
    try {
      return await this.#attempt(what, call, context, waitMs);
    } catch (first) {
      // The closure that repeats the call is made only once a call failed: the calls that succeed
      // at once, nearly all of them, allocate nothing but their context.
      const again = () => this.#attempt(what, call, context, waitMs);
      try {
        return await retryAfterFailure(first, again, {
          policy: this.#settings.retryPolicy,
          clock: this.#settings.clock,
          signal: this.#closing.signal,
          onRetry: this.#onRetry,
          retryable: (error) => error.isTransient && !answers?.has(error.code),
        });
      } catch (thrown) {
        const error = toQueueError(thrown);
        const errors = this.#settings.metrics.errors;
        errors[error.code] = (errors[error.code] ?? 0) + 1;
        throw error;
      }
    }
  }

  /** One attempt of a call: under a deadline of `waitMs` plus the operation timeout unless the provider bounds its own calls. */
  #attempt<T>(
    what: string,
    call: (context: OperationContext) => Promise<T>,
    context: OperationContext,
    waitMs: number,
  ): Promise<T> {
    if (this.#settings.boundedCalls) return call(context);
    return this.#deadlines.race(call(context), waitMs + this.#settings.operationMs, what);
  }

  /**
   * A context whose signal also follows `signal`, for a wait the caller may end early. One per
   * caller's signal, kept while that signal lives: a consumer passes the same one to every receive,
   * and `AbortSignal.any` costs a weak reference and listeners each time it is called.
   */
  #contextFollowing(signal: AbortSignal | undefined): OperationContext {
    if (signal === undefined) return this.#context;
    let context = this.#following.get(signal);
    if (context === undefined) {
      context = {
        signal: AbortSignal.any([this.#closing.signal, signal]),
        timeoutMs: this.#settings.operationMs,
      };
      this.#following.set(signal, context);
    }
    return context;
  }

  /** Refuses new calls, ends waits, and stops the deadline timer. */
  close(): void {
    this.#closing.abort();
    this.#deadlines.clear();
  }
}
