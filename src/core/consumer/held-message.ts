import type { ReceivedMessage } from "../message.js";
import type { SessionClient } from "../queue-client.js";
import type { MessageContext } from "./consumer.js";
import type { Kept } from "./lock-keeper.js";

/** What is to become of a held message. */
export type Outcome =
  | { readonly kind: "complete" }
  | { readonly kind: "abandon"; readonly delayMs: number }
  | { readonly kind: "deadLetter"; readonly reason: string; readonly description: string | undefined };

/** Completion, shared: the outcome of nearly every message allocates nothing. */
export const COMPLETE: Outcome = Object.freeze({ kind: "complete" });

/** A handler run whose signal aborts once: made only when someone reads it. */
export class Abortable {
  #controller: AbortController | undefined;
  #reason: unknown;
  #aborted = false;

  /** Aborts when the run is told to end. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#reason);
    }
    return this.#controller.signal;
  }

  /** Aborts the signal with `reason` (the first reason wins). */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }
}

/** The consumer a held message belongs to: what its context and its keeper ask of it. */
export interface Holder {
  /** Settles `held` for its handler (a context call): rejects when it is no longer held. */
  settleForHandler(held: HeldMessage, outcome: Outcome): Promise<void>;
  /** Renews the lock of `held` for its handler. */
  renewForHandler(held: HeldMessage): Promise<Date>;
  /** Renews the lock of `held` on time; never rejects. */
  renewOnTime(held: HeldMessage): Promise<void>;
  /** `held`'s handler ran out of time; never rejects. */
  timedOut(held: HeldMessage): Promise<void>;
}

const UNREAD: unique symbol = Symbol("unread");

/**
 * A message a consumer received and has not let go of: its lock's renewal, its handler's
 * deadline, and the context its handler gets. Settled once: whoever claims it first settles it.
 */
export class HeldMessage extends Abortable implements MessageContext, Kept {
  readonly message: ReceivedMessage;
  readonly session: SessionClient | undefined;
  /** When it was received, by the consumer's clock. */
  readonly receivedAtMs: number;
  /** The run whose signal its handler sees: itself, or the batch it is in. */
  run: Abortable = this;
  renewAtMs: number;
  renewUntilMs: number;
  /** When its lock ends unless renewed, as last known; `Infinity` under a session's lock. */
  lockedUntilMs: number;
  deadlineMs = Number.POSITIVE_INFINITY;
  renewing = false;
  #holder: Holder;
  #state: "held" | "settled" | "lost" = "held";
  #value: unknown = UNREAD;

  constructor(
    holder: Holder,
    message: ReceivedMessage,
    session: SessionClient | undefined,
    nowMs: number,
    renewUntilMs: number,
  ) {
    super();
    this.#holder = holder;
    this.message = message;
    this.session = session;
    this.receivedAtMs = nowMs;
    this.renewUntilMs = renewUntilMs;
    this.lockedUntilMs = session === undefined ? message.receiptHandle.expiresAtMs : Number.POSITIVE_INFINITY;
    this.renewAtMs = halfwayTo(nowMs, message.receiptHandle.expiresAtMs);
  }

  /** True while nobody has settled it, given it back or found its lock lost. */
  get held(): boolean {
    return this.#state === "held";
  }

  /** True once its lock was found lost. */
  get lost(): boolean {
    return this.#state === "lost";
  }

  /** Takes it for settling: true for the first caller while it is held, false for everyone after. */
  claim(): boolean {
    if (this.#state !== "held") return false;
    this.#state = "settled";
    return true;
  }

  /** Gives back a claim whose settle was refused before anything was sent (a bad argument). */
  unclaim(): void {
    if (this.#state === "settled") this.#state = "held";
  }

  /** Its lock is gone: its handler's signal aborts with `error` and nobody settles it. */
  lose(error: unknown): void {
    this.#state = "lost";
    this.run.abort(error);
  }

  get deliveryCount(): number {
    return this.message.deliveryCount;
  }

  get value(): unknown {
    if (this.#value === UNREAD) this.#value = this.message.json();
    return this.#value;
  }

  /** Sets what `value` answers: the schema's output. */
  setValue(value: unknown): void {
    this.#value = value;
  }

  complete(): Promise<void> {
    return this.#holder.settleForHandler(this, COMPLETE);
  }

  abandon(options?: { delayMs?: number }): Promise<void> {
    return this.#holder.settleForHandler(this, { kind: "abandon", delayMs: options?.delayMs ?? 0 });
  }

  deadLetter(reason: string, description?: string): Promise<void> {
    return this.#holder.settleForHandler(this, { kind: "deadLetter", reason, description });
  }

  renewLock(): Promise<Date> {
    return this.#holder.renewForHandler(this);
  }

  renew(): Promise<void> {
    return this.#holder.renewOnTime(this);
  }

  expire(): Promise<void> {
    return this.#holder.timedOut(this);
  }
}

/** Half way from now to a lock's expiry: when it is renewed, so a slow renewal still lands in time. */
export function halfwayTo(nowMs: number, expiresAtMs: number): number {
  return nowMs + Math.max(0, Math.floor((expiresAtMs - nowMs) / 2));
}
