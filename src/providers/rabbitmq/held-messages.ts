import type { Channel, Message } from "amqplib";
import type { Clock, TimerHandle } from "../../core/clock.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import type { Returned } from "./returns.js";

/** A message handed out under a lock: the delivery stays unacknowledged on its channel until settled. */
export interface Held {
  readonly id: string;
  /** The queue-runtime queue it was received from. */
  readonly queue: string;
  readonly brokerQueue: string;
  readonly record: QueueRecord;
  readonly channel: Channel;
  readonly message: Message;
  readonly deliveryCount: number;
  lockedUntil: number;
  timer: TimerHandle;
  /** Called when the message stops being held (settled, given back at its lock's end, or its channel gone). */
  readonly released: (() => Promise<void>) | undefined;
  /** For a session's message: takes it back into the session, which hands it out again first. */
  readonly keep: ((returned: Returned) => void) | undefined;
}

/** What {@link HeldMessages.hold} needs of a delivery. */
export type HeldInput = Omit<Held, "id" | "timer">;

/**
 * The messages this client holds locks on, by receipt id. The lock is the provider's own: at its
 * end the delivery is given back (nack, requeue), which the broker counts as a delivery, and its
 * receipt is forgotten, so a late settle is `InvalidReceipt` as everywhere.
 */
export class HeldMessages {
  readonly #clock: Clock;
  readonly #byId = new Map<string, Held>();
  #next = 0;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Holds a delivery until `lockedUntil`; resolves its receipt id. */
  hold(input: HeldInput): string {
    const id = String(++this.#next);
    const held: Held = { ...input, id, timer: this.#arm(id, input.lockedUntil) };
    this.#byId.set(id, held);
    return id;
  }

  #arm(id: string, until: number): TimerHandle {
    return this.#clock.setTimer(() => this.giveBack(id), Math.max(0, until - this.#clock.now()), true);
  }

  /** The held message of `id` whose lock still holds. */
  get(id: string): Held | undefined {
    const held = this.#byId.get(id);
    if (held === undefined) return undefined;
    if (held.lockedUntil <= this.#clock.now()) {
      this.giveBack(id);
      return undefined;
    }
    return held;
  }

  /**
   * Stops holding `id` (to settle it); undefined when its lock is gone. The caller calls
   * `released` once the settle is done: a borrowed session must not close its channel under it.
   */
  take(id: string): Held | undefined {
    const held = this.get(id);
    if (held === undefined) return undefined;
    held.timer.cancel();
    this.#byId.delete(held.id);
    return held;
  }

  /** Extends the lock of `id` to `until`; false when its lock is gone. */
  extend(id: string, until: number): boolean {
    const held = this.get(id);
    if (held === undefined) return false;
    held.timer.cancel();
    held.lockedUntil = until;
    held.timer = this.#arm(id, until);
    return true;
  }

  /** Gives the delivery of `id` back to its queue, or to its session (its lock ended). */
  giveBack(id: string): void {
    const held = this.#byId.get(id);
    if (held === undefined) return;
    held.timer.cancel();
    this.#byId.delete(held.id);
    // Back to its session first: `released` may let the session go, which puts back what it took.
    if (held.keep !== undefined) held.keep({ message: held.message, deliveries: held.deliveryCount });
    else
      try {
        held.channel.nack(held.message, false, true);
      } catch {
        // The channel is gone: the broker gave the message back when it closed.
      }
    void held.released?.();
  }

  /** Forgets every message held on `channel`, which closed: the broker gave them back. */
  dropChannel(channel: Channel): void {
    for (const held of [...this.#byId.values()]) if (held.channel === channel) this.#forget(held);
  }

  /** How many messages of `brokerQueues` this client holds. */
  countOf(brokerQueues: ReadonlySet<string>): number {
    let count = 0;
    for (const held of this.#byId.values()) if (brokerQueues.has(held.brokerQueue)) count++;
    return count;
  }

  /** The held messages of `brokerQueues`. */
  of(brokerQueues: ReadonlySet<string>): Held[] {
    return [...this.#byId.values()].filter((held) => brokerQueues.has(held.brokerQueue));
  }

  /** Forgets everything (the client closes; the connection's end gives it all back). */
  clear(): void {
    for (const held of [...this.#byId.values()]) this.#forget(held);
  }

  #forget(held: Held): void {
    held.timer.cancel();
    this.#byId.delete(held.id);
    void held.released?.();
  }
}
