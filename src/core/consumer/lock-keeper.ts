import type { Clock, TimerHandle } from "../clock.js";

/** Something a consumer holds under a lock: a message, or a session. */
export interface Kept {
  /** When its lock should next be renewed (ms since the epoch); `Infinity` for never. */
  renewAtMs: number;
  /** No renewal starts at or after this. */
  renewUntilMs: number;
  /** When its handler's time is up; `Infinity` for never. */
  deadlineMs: number;
  /** A renewal is under way. */
  renewing: boolean;
  /** Renews the lock and moves `renewAtMs`; never rejects. */
  renew(): Promise<void>;
  /** Its deadline passed; never rejects. */
  expire(): Promise<void>;
}

/**
 * Renews the locks of everything a consumer holds and ends the handlers that outrun their
 * deadline, on one timer armed for the earliest of them: a message costs a set insertion, not a
 * timer of its own, on the hot path.
 */
export class LockKeeper {
  readonly #clock: Clock;
  readonly #kept = new Set<Kept>();
  #timer: TimerHandle | undefined;
  #timerDue = Number.POSITIVE_INFINITY;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Everything kept, in the order it was added. */
  get kept(): ReadonlySet<Kept> {
    return this.#kept;
  }

  /** Starts keeping `kept`. */
  add(kept: Kept): void {
    this.#kept.add(kept);
    this.#schedule(kept);
  }

  /** Arms the timer again if `kept`'s renewal or deadline now falls before it. */
  update(kept: Kept): void {
    if (this.#kept.has(kept)) this.#schedule(kept);
  }

  /** Stops keeping `kept`. */
  remove(kept: Kept): void {
    this.#kept.delete(kept);
  }

  /** Stops keeping anything. */
  clear(): void {
    this.#kept.clear();
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerDue = Number.POSITIVE_INFINITY;
  }

  #schedule(kept: Kept): void {
    const due = dueOf(kept);
    if (due < this.#timerDue) this.#arm(due);
  }

  #arm(due: number): void {
    this.#timer?.cancel();
    this.#timerDue = due;
    this.#timer = this.#clock.setTimer(() => this.#fire(), Math.max(0, due - this.#clock.now()), true);
  }

  /** Runs what fell due and re-arms; resolves when the renewals it started are done (a virtual clock waits for them). */
  #fire(): Promise<void> | undefined {
    this.#timer = undefined;
    this.#timerDue = Number.POSITIVE_INFINITY;
    const now = this.#clock.now();
    const work: Promise<void>[] = [];
    for (const kept of this.#kept) {
      if (kept.deadlineMs <= now) {
        kept.deadlineMs = Number.POSITIVE_INFINITY;
        work.push(kept.expire());
      }
      if (!kept.renewing && kept.renewAtMs <= now && now < kept.renewUntilMs) {
        kept.renewing = true;
        work.push(
          kept.renew().finally(() => {
            kept.renewing = false;
            this.update(kept);
          }),
        );
      }
    }
    let next = Number.POSITIVE_INFINITY;
    for (const kept of this.#kept) next = Math.min(next, dueOf(kept));
    if (next < this.#timerDue) this.#arm(next);
    return work.length === 0 ? undefined : Promise.all(work).then(() => undefined);
  }
}

/** When `kept` next needs the keeper: its deadline, or its renewal unless one is under way or none is left. */
function dueOf(kept: Kept): number {
  const renewal =
    kept.renewing || kept.renewAtMs >= kept.renewUntilMs ? Number.POSITIVE_INFINITY : kept.renewAtMs;
  return Math.min(kept.deadlineMs, renewal);
}
