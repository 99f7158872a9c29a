import type { Clock, TimerHandle } from "../core/clock.js";

/**
 * Runs a queue's tick on its clock every `intervalMs`, holding a timer only while the queue has
 * work, so an idle or stopped queue leaves nothing scheduled.
 */
export class Ticker {
  #intervalMs: number | undefined = undefined;
  #timer: TimerHandle | undefined = undefined;

  /** Ticks with `tick` on `clock`; `hasWork` says whether another tick is needed. */
  constructor(
    private readonly clock: Clock,
    private readonly tick: () => void,
    private readonly hasWork: () => boolean,
  ) {}

  /** The interval between ticks; undefined until `start` is called. */
  get intervalMs(): number | undefined {
    return this.#intervalMs;
  }

  /** Ticks every `intervalMs` from now on (re-arming at once when the interval changes). */
  start(intervalMs: number): void {
    if (this.#intervalMs === intervalMs) return;
    this.#intervalMs = intervalMs;
    this.cancel();
    this.schedule();
  }

  /** Arms the next tick if ticking was started, there is work, and none is armed yet. */
  schedule(): void {
    if (this.#intervalMs === undefined || this.#timer !== undefined || !this.hasWork()) return;
    this.#timer = this.clock.setTimer(this.#onTimer, this.#intervalMs);
  }

  /** Drops the armed tick, if any; `schedule` arms a new one. */
  cancel(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    this.tick();
    this.schedule();
  };
}
