/** A receive waiting on an {@link Inbox}. */
interface Waiter<T> {
  readonly max: number;
  readonly resolve: (items: T[]) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * The local buffer of a push consumer, as a hand-written receive loop keeps one: deliveries are
 * pushed in as they come, `take` hands out up to `max` of them, waiting a while for the first.
 * Deliveries of one socket read are handed out together (a waiter is served once per microtask).
 */
export class Inbox<T> {
  private readonly items: T[] = [];
  private readonly waiters: Waiter<T>[] = [];
  private flushing = false;

  /** Adds a delivery; a waiting `take` gets it at the end of this task's synchronous run. */
  push(item: T): void {
    this.items.push(item);
    if (this.waiters.length > 0 && !this.flushing) {
      this.flushing = true;
      queueMicrotask(() => this.flush());
    }
  }

  /** Up to `max` deliveries: those there now, else the first to come within `waitMs` (none after it). */
  take(max: number, waitMs: number): Promise<T[]> {
    if (this.items.length > 0 || waitMs <= 0) return Promise.resolve(this.items.splice(0, max));
    return new Promise((resolve) => {
      const waiter: Waiter<T> = {
        max,
        resolve,
        timer: setTimeout(() => {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          resolve([]);
        }, waitMs),
      };
      this.waiters.push(waiter);
    });
  }

  /** Hands the deliveries there to the waiters, first come first served. */
  private flush(): void {
    this.flushing = false;
    while (this.items.length > 0) {
      const waiter = this.waiters.shift();
      if (waiter === undefined) return;
      clearTimeout(waiter.timer);
      waiter.resolve(this.items.splice(0, waiter.max));
    }
  }
}
