import type { EventEmitter } from "node:events";
import type { QueueError } from "../errors.js";
import type { ReceivedMessage } from "../message.js";
import type { SessionClient } from "../session-client.js";

/** What a consumer has done since it started. */
export interface ConsumerMetrics {
  /** Messages received (prefetched ones included). */
  received: number;
  completed: number;
  abandoned: number;
  deadLettered: number;
  /** Handlers that threw (or timed out); their messages were abandoned or dead-lettered. */
  failed: number;
  lockRenewals: number;
  /** Locks found lost (a renewal or a settle refused): the message was left to whoever holds it now. */
  locksLost: number;
}

/** The events of a consumer, as `consumer.on(name, listener)` takes them. */
export interface ConsumerEvents {
  /** A failure of the consumer's own work (a receive, a settle, a renewal), with the message it concerned. */
  error: [error: QueueError, message?: ReceivedMessage];
  /** A handler threw or timed out; what was done with its message is counted in `metrics`. */
  failed: [error: unknown, message: ReceivedMessage];
  /** A receive found nothing while nothing was held: the queue is drained, for now. */
  idle: [];
  /** `stop()` finished: nothing of the consumer is running any more. */
  stopped: [];
}

/** How `stop()` ends a consumer. */
export interface StopOptions {
  /** How long running handlers may take to finish before their signals abort and their messages are abandoned (default 30 000). */
  timeoutMs?: number;
}

/** A handler running on a queue for as long as the app does: `client.consume()` and its siblings. */
export interface Consumer extends EventEmitter<ConsumerEvents>, AsyncDisposable {
  /** The queue it consumes. */
  readonly queue: string;
  /** True from `consume()` until `stop()` begins. */
  readonly running: boolean;
  /** Messages received and not yet settled or given back: running and prefetched. */
  readonly inFlight: number;
  readonly metrics: Readonly<ConsumerMetrics>;
  /**
   * Stops receiving at once, gives back prefetched messages, lets running handlers finish (then
   * aborts them and abandons their messages after `timeoutMs`), and resolves when nothing of the
   * consumer runs any more. Calling it again returns the same promise.
   */
  stop(options?: StopOptions): Promise<void>;
}

/** What a handler can do with the message it runs on, beside resolving or throwing. */
export interface MessageContext<Value = unknown> {
  /** Aborts when the handler times out, when the message's lock is lost, and at `stop()` past its timeout. */
  readonly signal: AbortSignal;
  /** How many times the message has been delivered, this time included. */
  readonly deliveryCount: number;
  /** The body as JSON, parsed when first read; the schema's output when the consumer has one. */
  readonly value: Value;
  /** The held session, for `consumeSessions` (its state, its id). */
  readonly session: SessionClient | undefined;
  /** Completes the message now; the consumer then leaves it alone. */
  complete(): Promise<void>;
  /** Gives the message back now, to come again after `delayMs`; the consumer then leaves it alone. */
  abandon(options?: { delayMs?: number }): Promise<void>;
  /** Dead-letters the message now, with why; the consumer then leaves it alone. */
  deadLetter(reason: string, description?: string): Promise<void>;
  /** Renews the message's lock (a session's lock for `consumeSessions`) now; resolves the new expiry. */
  renewLock(): Promise<Date>;
}

/** What a batch handler can do with the messages it runs on. */
export interface BatchContext<Value = unknown> {
  /** Aborts when the batch times out, when a lock of it is lost, and at `stop()` past its timeout. */
  readonly signal: AbortSignal;
  /** Each message's body as JSON (the schema's output when there is one), in the order of the messages. */
  readonly values: readonly Value[];
  /** Completes one message of the batch now; the consumer then leaves it alone. */
  complete(message: ReceivedMessage): Promise<void>;
  /** Gives one message back now, to come again after `delayMs`. */
  abandon(message: ReceivedMessage, options?: { delayMs?: number }): Promise<void>;
  /** Dead-letters one message now, with why. */
  deadLetter(message: ReceivedMessage, reason: string, description?: string): Promise<void>;
  /** Renews one message's lock now; resolves the new expiry. */
  renewLock(message: ReceivedMessage): Promise<Date>;
}

/** Runs on one message; resolving completes it, throwing abandons it (a `DeadLetterError` dead-letters it). */
export type MessageHandler<Value = unknown> = (
  message: ReceivedMessage,
  context: MessageContext<Value>,
) => unknown | Promise<unknown>;

/** Runs on a batch; resolving completes what the handler did not settle, throwing abandons it. */
export type BatchHandler<Value = unknown> = (
  messages: readonly ReceivedMessage[],
  context: BatchContext<Value>,
) => unknown | Promise<unknown>;
