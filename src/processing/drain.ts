import type { Clock, TimerHandle } from "../core/clock.js";

/** The wait of a draining `stop()`: resolves once the queue is empty, or gives up at a deadline. */
export class Drain {
  /** Resolves when {@link Drain.finish} is called. */
  readonly done: Promise<void>;
  #resolve: () => void = () => undefined;
  #deadline: TimerHandle | undefined;

  /** Starts waiting; after `timeoutMs` (0 = never) `onDeadline` is called to cancel the rest. */
  constructor(clock: Clock, timeoutMs: number, onDeadline: () => void) {
    this.done = new Promise((resolve) => {
      this.#resolve = resolve;
    });
    this.#deadline = timeoutMs > 0 ? clock.setTimer(onDeadline, timeoutMs) : undefined;
  }

  /** Ends the wait: cancels the deadline and resolves `done`. */
  finish(): void {
    this.#deadline?.cancel();
    this.#deadline = undefined;
    this.#resolve();
  }
}
