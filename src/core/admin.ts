import type { ReceivedMessage } from "./message.js";

/** How a queue behaves; every field has a provider default. */
export interface QueueOptions {
  /** Orders messages per session (message group) and allows `acceptSession`. Same as `requiresSession`. */
  fifo?: boolean;
  /** Same as `fifo`: messages carry a session id and are delivered in order per session. */
  requiresSession?: boolean;
  /** How long a receive locks a message before it becomes visible again. */
  lockDurationMs?: number;
  /** After this many deliveries without completion a message is dead-lettered; `null` never. */
  maxDeliveryCount?: number | null;
  /** Where dead letters go (default: the provider's name for it); `null` drops nothing and dead-letters nowhere. */
  deadLetterQueue?: string | null;
  /** How long a message may wait to be received; `null` forever. */
  defaultTimeToLiveMs?: number | null;
  /** Whether a message whose time to live ends is dead-lettered (`TTLExpired`) rather than dropped. */
  deadLetterOnExpiration?: boolean;
  /** Repeats of a deduplication id within this window are dropped; 0 turns deduplication off. */
  deduplicationWindowMs?: number;
  /** A delay applied to every message sent without one of its own. */
  defaultDelayMs?: number;
}

/** A queue's counts at one moment. */
export interface QueueStats {
  /** Messages ready to be received now. */
  active: number;
  /** Messages received and locked, not yet settled. */
  inFlight: number;
  /** Messages that become visible later (sent with a delay or abandoned with one). */
  delayed: number;
  /** Messages waiting in the queue's dead-letter queue. */
  deadLettered: number;
}

/** A queue and its effective options. */
export interface QueueInfo {
  readonly name: string;
  readonly fifo: boolean;
  readonly lockDurationMs: number;
  readonly maxDeliveryCount: number | null;
  readonly deadLetterQueue: string | null;
  readonly defaultTimeToLiveMs: number | null;
  readonly deadLetterOnExpiration: boolean;
  readonly deduplicationWindowMs: number;
  readonly defaultDelayMs: number;
  readonly createdAt: Date;
}

/** Where a peeked message is: ready to be received, locked by a receiver, or waiting for its delay. */
export type PeekedState = "active" | "inFlight" | "delayed";

/** A message as a peek shows it: a received message without a receipt or lock, and its state. */
export type PeekedMessage = Omit<ReceivedMessage, "receiptHandle" | "lockedUntil"> & {
  readonly state: PeekedState;
};

/** Creating, inspecting and emptying queues, and moving dead letters back. */
export interface QueueAdmin {
  /** Creates a queue; fails with `QueueAlreadyExists` when one of that name exists. */
  createQueue(name: string, options?: QueueOptions): Promise<QueueInfo>;
  /** Deletes a queue and its messages; fails with `QueueNotFound` when there is none. */
  deleteQueue(name: string): Promise<void>;
  /** The names of all queues, dead-letter queues included, sorted. */
  listQueues(prefix?: string): Promise<string[]>;
  /** A queue and its options, or `null` when it does not exist. */
  getQueue(name: string): Promise<QueueInfo | null>;
  /** Counts of a queue's messages by state. */
  getQueueStats(name: string): Promise<QueueStats>;
  /** Removes every message of a queue, locked ones included; resolves how many were removed. */
  purgeQueue(name: string): Promise<number>;
  /** The name of the queue that receives this queue's dead letters. */
  deadLetterQueueOf(name: string): Promise<string>;
  /** Moves the messages of a dead-letter queue back to their source queue (or to `target`); resolves how many moved. */
  redrive(deadLetterQueue: string, target?: string): Promise<number>;
  /**
   * Up to `max` messages in sequence order (from `fromSequence` on, when given) without locking
   * them or counting a delivery; `Unsupported` where `capabilities.peek` is false.
   */
  peekMessages(queue: string, max: number, fromSequence?: string): Promise<PeekedMessage[]>;
}
