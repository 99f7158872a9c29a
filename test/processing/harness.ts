import { expect } from "vitest";
import type { Clock } from "../../src/core/clock.js";
import { VirtualClock } from "../../src/core/clock.js";
import { QueueError, type QueueErrorCode } from "../../src/core/errors.js";
import {
  type CompleteProcessing,
  MessageQueue,
  type MessageQueueOptions,
  type MessageQueueResult,
  type ProcessingContext,
} from "../../src/processing/index.js";

/** One call of the processor, kept so a test can complete it whenever it wants. */
export interface Call<T> {
  readonly message: T;
  readonly complete: CompleteProcessing;
  readonly context: ProcessingContext;
}

/** One run of a completion callback. */
export interface Completion<T> {
  readonly message: T;
  readonly result: MessageQueueResult;
  readonly reason: unknown;
  readonly context: unknown;
}

/** A queue on virtual time whose processor only records its calls, with a completion recorder. */
export interface Harness<T> {
  readonly queue: MessageQueue<T>;
  readonly clock: VirtualClock;
  readonly calls: Call<T>[];
  readonly completions: Completion<T>[];
  readonly onCompleted: (message: T, result: MessageQueueResult, reason: unknown, context: unknown) => void;
  readonly callbackErrors: unknown[];
}

/** Builds a {@link Harness}; `options` override the recording processor and settings. */
export function harness<T = string>(options: Partial<MessageQueueOptions<T>> = {}): Harness<T> {
  const clock = new VirtualClock();
  const calls: Call<T>[] = [];
  const completions: Completion<T>[] = [];
  const callbackErrors: unknown[] = [];
  const queue = new MessageQueue<T>({
    clock,
    onProcessMessage: (message, complete, context) => {
      calls.push({ message, complete, context });
    },
    onCallbackError: (error) => {
      callbackErrors.push(error);
    },
    ...options,
  });
  const onCompleted = (message: T, result: MessageQueueResult, reason: unknown, context: unknown) => {
    completions.push({ message, result, reason, context });
  };
  return { queue, clock, calls, completions, onCompleted, callbackErrors };
}

/** Asserts that `action` throws a QueueError with `code`. */
export function expectQueueError(action: () => unknown, code: QueueErrorCode): QueueError {
  let thrown: unknown;
  try {
    action();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(QueueError);
  expect((thrown as QueueError).code).toBe(code);
  return thrown as QueueError;
}

/** A clock that counts its reads and can be told to fail them. */
export class CountingClock implements Clock {
  readonly inner = new VirtualClock();
  reads = 0;
  failing = false;

  /** Counts the read, then fails when told to. */
  now(): number {
    this.reads++;
    if (this.failing) throw new Error("clock unavailable");
    return this.inner.now();
  }

  /** Delegates to the virtual clock. */
  setTimer(callback: () => void, delayMs: number) {
    return this.inner.setTimer(callback, delayMs);
  }
}

/** Lets promise reactions run. */
export function flush(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
