import { onAbort } from "./abort-watch.js";
import { QueueError } from "./errors.js";

/** A handle to a timer started by a {@link Clock}. */
export interface TimerHandle {
  /** Stops the timer; calling it after the timer ran does nothing. */
  cancel(): void;
}

/** The source of time for everything that waits, locks or expires: injected so tests run on virtual time. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /**
   * Runs `callback` once, `delayMs` from now. A `background` timer does not keep the process
   * alive by itself (a deadline watching other work); others do (a wait someone awaits). A
   * callback may return the work it starts (never rejecting): a virtual clock waits for it
   * before time moves on, so that work sees the time it was started for.
   */
  setTimer(callback: () => void | Promise<void>, delayMs: number, background?: boolean): TimerHandle;
}

/** Node's timers cannot wait longer than this; longer waits are re-armed. */
const MAX_TIMER_MS = 2_147_483_647;

/** The real clock: `Date.now()` and Node's timers. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(callback, delayMs, background = false) {
    const due = Date.now() + delayMs;
    let timer: NodeJS.Timeout;
    const arm = (ms: number) => {
      timer = setTimeout(
        () => {
          const left = due - Date.now();
          if (left > 0) arm(left);
          else callback();
        },
        Math.min(Math.max(ms, 0), MAX_TIMER_MS),
      );
      if (background) timer.unref();
    };
    arm(delayMs);
    return { cancel: () => clearTimeout(timer) };
  },
};

interface VirtualTimer {
  readonly due: number;
  readonly order: number;
  readonly callback: () => void | Promise<void>;
  cancelled: boolean;
}

/** A clock that moves only when told to: `advance(ms)` runs every timer that falls due, in order. */
export class VirtualClock implements Clock {
  #now: number;
  #order = 0;
  #timers: VirtualTimer[] = [];

  /** Starts at `startMs` (default 2026-01-01T00:00:00Z). */
  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.#now = startMs;
  }

  /** The current virtual time in milliseconds since the epoch. */
  now(): number {
    return this.#now;
  }

  /** Schedules `callback` at virtual time `now() + delayMs`. */
  setTimer(callback: () => void | Promise<void>, delayMs: number): TimerHandle {
    const timer: VirtualTimer = {
      due: this.#now + Math.max(0, delayMs),
      order: this.#order++,
      callback,
      cancelled: false,
    };
    this.#timers.push(timer);
    return {
      cancel: () => {
        timer.cancelled = true;
      },
    };
  }

  /** How many timers are still waiting (cancelled ones excluded). */
  get pendingTimers(): number {
    return this.#timers.filter((timer) => !timer.cancelled).length;
  }

  /**
   * Moves time forward by `ms`, running each timer at its due time and letting promise chains
   * and I/O callbacks settle after each one (and the work it returned, if it did), so code
   * awaiting a timer sees the time it expects.
   */
  async advance(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new QueueError("Validation", `cannot advance a clock by ${ms} ms`);
    const target = this.#now + ms;
    await settle();
    for (;;) {
      const next = this.#takeNextDue(target);
      if (next === undefined) break;
      this.#now = Math.max(this.#now, next.due);
      await next.callback();
      await settle();
    }
    this.#now = target;
    await settle();
  }

  #takeNextDue(target: number): VirtualTimer | undefined {
    this.#timers = this.#timers.filter((timer) => !timer.cancelled);
    let next: VirtualTimer | undefined;
    for (const timer of this.#timers) {
      if (timer.due > target) continue;
      if (next === undefined || timer.due < next.due || (timer.due === next.due && timer.order < next.order))
        next = timer;
    }
    if (next !== undefined) next.cancelled = true;
    return next;
  }
}

/** Lets pending promise reactions and immediate callbacks run. */
function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Resolves after `ms` on `clock`, or at once (without error) when `signal` aborts. Any number of
 * sleeps on one signal share one listener on it.
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const forget =
      signal === undefined
        ? () => undefined
        : onAbort(signal, () => {
            timer.cancel();
            resolve();
          });
    const timer = clock.setTimer(() => {
      forget();
      resolve();
    }, ms);
  });
}
