import type { TimerHandle } from "../clock.js";
import { toQueueError } from "../errors.js";
import type { ReceivedMessage } from "../message.js";
import { BaseConsumer } from "./base-consumer.js";
import type { HeldMessage } from "./held-message.js";

/**
 * A consumer that receives from its queue in one loop into a list of waiting messages, as room
 * frees up, and starts handlers from that list: `consume` and `consumeBatches`.
 */
export abstract class PollingConsumer<Handler> extends BaseConsumer<Handler> {
  /** Received, not yet started: the prefetched messages, oldest first. */
  protected readonly waiting: HeldMessage[] = [];
  #roomWaiter: (() => void) | undefined;
  #dispatchTimer: TimerHandle | undefined;

  /** The most messages held at once (running and waiting). */
  protected abstract get capacity(): number;

  /** Messages held now (running and waiting). */
  abstract override get inFlight(): number;

  /** Starts what the waiting messages and free handlers allow. */
  protected abstract dispatch(): void;

  start(): void {
    void this.#receiveLoop();
  }

  /** Receives while there is room; waits for room otherwise; never rejects. */
  async #receiveLoop(): Promise<void> {
    this.enter();
    let failures = 0;
    try {
      while (this.running) {
        const room = this.capacity - this.inFlight;
        if (room <= 0) {
          await new Promise<void>((resolve) => {
            this.#roomWaiter = resolve;
          });
          continue;
        }
        let messages: ReceivedMessage[];
        try {
          messages = await this.receive(room);
          failures = 0;
        } catch (error) {
          const failure = toQueueError(error);
          if (!this.running || failure.code === "ClientClosed") break;
          this.report(failure);
          await this.backOff(++failures);
          continue;
        }
        if (!this.running) {
          await Promise.all(messages.map((message) => this.giveBack(this.hold(message))));
          break;
        }
        if (messages.length === 0) {
          this.noteEmpty();
          continue;
        }
        for (const message of messages) this.waiting.push(this.hold(message));
        this.dispatch();
      }
    } finally {
      this.leave();
    }
  }

  /**
   * Called as messages leave: wakes the receive loop once half the room is free (so that it
   * receives in runs rather than one message at a time), or when nothing is held at all.
   */
  protected roomFreed(): void {
    const waiter = this.#roomWaiter;
    if (waiter === undefined) return;
    const room = this.capacity - this.inFlight;
    if (room * 2 < this.capacity && this.inFlight > 0) return;
    this.#roomWaiter = undefined;
    waiter();
  }

  /** Runs `dispatch` again after `ms` (a rate limit's wait, a batch's gathering), once. */
  protected dispatchLater(ms: number): void {
    if (this.#dispatchTimer !== undefined) return;
    this.#dispatchTimer = this.clock.setTimer(() => {
      this.#dispatchTimer = undefined;
      this.dispatch();
    }, ms);
  }

  protected wake(): void {
    this.#dispatchTimer?.cancel();
    this.#dispatchTimer = undefined;
    const waiter = this.#roomWaiter;
    this.#roomWaiter = undefined;
    waiter?.();
  }

  protected async giveBackWaiting(): Promise<void> {
    await Promise.all(this.waiting.splice(0).map((held) => this.giveBack(held)));
  }
}
