import type { QueueStats } from "../../core/admin.js";
import { QueueError } from "../../core/errors.js";

/**
 * A reference model of the shared semantics (docs: shared/spec/semantics.md) for standard queues,
 * written to be read, not to be fast: every message is an object in an array in send order, and
 * time is a number of ms that only `advance` moves. Everything time does (delays ending, locks
 * ending, time to live ending) is applied eagerly, so the model's state at any instant follows
 * from the semantics alone, not from when a provider happens to look.
 */

/** The options of a queue the model knows (standard queues only). */
export interface ModelQueueOptions {
  lockDurationMs?: number;
  /** `null`: never dead-letter for deliveries. */
  maxDeliveryCount?: number | null;
  /** `undefined`: `<name>-dlq`; `null`: no dead-letter queue. */
  deadLetterQueue?: string | null;
  defaultDelayMs?: number;
  /** `null`: messages live forever. */
  defaultTimeToLiveMs?: number | null;
  /** 0 turns deduplication off. */
  deduplicationWindowMs?: number;
}

/** A message as the model sends it. */
export interface ModelSend {
  /** The body; the model's identity of a message, so unique per send. */
  body: string;
  delayMs?: number;
  timeToLiveMs?: number;
  deduplicationId?: string;
}

/** A delivery as the model hands it out. */
export interface ModelDelivery {
  /** The model's opaque receipt token. */
  readonly receipt: string;
  readonly body: string;
  readonly deliveryCount: number;
  readonly lockedUntil: number;
  /** The dead-letter attributes, for messages in a dead-letter queue. */
  readonly deadLetter: DeadLetterMark | undefined;
}

/** Why and from where a message was dead-lettered. */
export interface DeadLetterMark {
  readonly reason: string;
  readonly description: string | undefined;
  readonly sourceQueue: string;
}

/** The defaults of the engine providers (memory, sqlite), which the model follows. */
export const MODEL_DEFAULTS = {
  lockDurationMs: 30_000,
  maxDeliveryCount: 10,
  deduplicationWindowMs: 300_000,
} as const;

/** The reasons the queue itself dead-letters with (named as in the engine). */
export const MODEL_REASONS = { maxDeliveryCount: "MaxDeliveryCountExceeded", expired: "TTLExpired" } as const;

interface QueueSettings {
  readonly lockDurationMs: number;
  readonly maxDeliveryCount: number | null;
  readonly deadLetterQueue: string | null;
  readonly defaultDelayMs: number;
  readonly defaultTimeToLiveMs: number | null;
  readonly deduplicationWindowMs: number;
}

type MessageState = "ready" | "delayed" | "locked";

interface ModelMessage {
  readonly body: string;
  state: MessageState;
  /** For `delayed`: when it becomes ready. */
  visibleAt: number;
  /** For `locked`: when the lock ends. */
  lockedUntil: number;
  /** The receipt of the current lock; `null` when not locked. */
  lock: string | null;
  deliveryCount: number;
  readonly expiresAt: number | null;
  readonly deadLetter: DeadLetterMark | undefined;
}

interface ModelQueue {
  readonly name: string;
  readonly settings: QueueSettings;
  /** In send (arrival) order: the order receives take them. */
  messages: ModelMessage[];
  /** Deduplication id → the body of the message first sent with it, and when that memory ends. */
  readonly duplicates: Map<string, { body: string; until: number }>;
}

/** The reference model: queues, messages, locks and a virtual clock. */
export class QueueModel {
  #now: number;
  #locks = 0;
  readonly #queues = new Map<string, ModelQueue>();

  /** Starts the model's clock at `startMs` (give it the provider's virtual clock's start). */
  constructor(startMs: number) {
    this.#now = startMs;
  }

  /** The model's current time in ms. */
  get now(): number {
    return this.#now;
  }

  /** Lets `ms` pass; everything due by then happens. */
  advance(ms: number): void {
    this.#now += ms;
    this.#applyTime();
  }

  /** The names of every queue, dead-letter queues included, sorted. */
  queueNames(): string[] {
    return [...this.#queues.keys()].sort();
  }

  /** True when some queue dead-letters into `name` (its order then depends on when things happened). */
  receivesDeadLetters(name: string): boolean {
    return [...this.#queues.values()].some((queue) => queue.settings.deadLetterQueue === name);
  }

  /** Every future instant at which something changes by itself (a lock, delay or time to live ends). */
  dueTimes(): number[] {
    const times: number[] = [];
    for (const queue of this.#queues.values())
      for (const message of queue.messages) {
        if (message.state === "locked") times.push(message.lockedUntil);
        if (message.state === "delayed") times.push(message.visibleAt);
        if (message.expiresAt !== null) times.push(message.expiresAt);
      }
    return times.filter((time) => time > this.#now).sort((a, b) => a - b);
  }

  /** When the lock of `receipt` ends, or `undefined` when it no longer holds. */
  lockEnd(receipt: string): number | undefined {
    return this.#holder(receipt)?.message.lockedUntil;
  }

  /** Creates a queue and, unless told not to, its dead-letter queue `<name>-dlq` when that does not exist. */
  createQueue(name: string, options: ModelQueueOptions = {}): void {
    if (this.#queues.has(name)) throw new QueueError("QueueAlreadyExists", `queue ${name} already exists`);
    const settings: QueueSettings = {
      lockDurationMs: options.lockDurationMs ?? MODEL_DEFAULTS.lockDurationMs,
      maxDeliveryCount:
        options.maxDeliveryCount === undefined ? MODEL_DEFAULTS.maxDeliveryCount : options.maxDeliveryCount,
      deadLetterQueue: options.deadLetterQueue === undefined ? `${name}-dlq` : options.deadLetterQueue,
      defaultDelayMs: options.defaultDelayMs ?? 0,
      defaultTimeToLiveMs: options.defaultTimeToLiveMs ?? null,
      deduplicationWindowMs: options.deduplicationWindowMs ?? MODEL_DEFAULTS.deduplicationWindowMs,
    };
    this.#queues.set(name, { name, settings, messages: [], duplicates: new Map() });
    const deadLetterQueue = settings.deadLetterQueue;
    if (deadLetterQueue !== null && !this.#queues.has(deadLetterQueue))
      this.#queues.set(deadLetterQueue, {
        name: deadLetterQueue,
        settings: deadLetterSettings(settings),
        messages: [],
        duplicates: new Map(),
      });
  }

  /** Sends a message; returns the body of the message stored (the original one for a repeated deduplication id). */
  send(queueName: string, message: ModelSend): string {
    const queue = this.#queue(queueName);
    const { settings } = queue;
    const dedupId = settings.deduplicationWindowMs > 0 ? message.deduplicationId : undefined;
    if (dedupId !== undefined) {
      const original = queue.duplicates.get(dedupId);
      if (original !== undefined && original.until > this.#now) return original.body;
    }
    const delayMs = message.delayMs ?? settings.defaultDelayMs;
    const timeToLiveMs = message.timeToLiveMs ?? settings.defaultTimeToLiveMs;
    queue.messages.push({
      body: message.body,
      state: delayMs > 0 ? "delayed" : "ready",
      visibleAt: this.#now + delayMs,
      lockedUntil: 0,
      lock: null,
      deliveryCount: 0,
      expiresAt: timeToLiveMs === null ? null : this.#now + timeToLiveMs,
      deadLetter: undefined,
    });
    if (dedupId !== undefined)
      queue.duplicates.set(dedupId, {
        body: message.body,
        until: this.#now + settings.deduplicationWindowMs,
      });
    return message.body;
  }

  /** Locks up to `max` ready messages, oldest first, each for the queue's lock duration. */
  receive(queueName: string, max: number): ModelDelivery[] {
    const queue = this.#queue(queueName);
    const received: ModelDelivery[] = [];
    for (const message of [...queue.messages]) {
      if (received.length >= max) break;
      if (message.state !== "ready") continue;
      // Unreachable while release dead-letters exhausted messages, kept because the semantics say "never again".
      if (
        this.#exhausted(queue, message) &&
        this.#moveToDeadLetter(queue, message, MODEL_REASONS.maxDeliveryCount)
      )
        continue;
      message.state = "locked";
      message.lock = `lock-${++this.#locks}`;
      message.lockedUntil = this.#now + queue.settings.lockDurationMs;
      message.deliveryCount++;
      received.push({
        receipt: message.lock,
        body: message.body,
        deliveryCount: message.deliveryCount,
        lockedUntil: message.lockedUntil,
        deadLetter: message.deadLetter,
      });
    }
    return received;
  }

  /** Removes a locked message for good. */
  complete(receipt: string): void {
    const { queue, message } = this.#held(receipt);
    remove(queue, message);
  }

  /** Gives a locked message back, visible again after `delayMs` (or dead-lettered when its deliveries are used up). */
  abandon(receipt: string, delayMs = 0): void {
    const { queue, message } = this.#held(receipt);
    this.#release(queue, message, this.#now + delayMs);
  }

  /** Moves a locked message to its queue's dead-letter queue; `Unsupported` when the queue has none. */
  deadLetter(receipt: string, reason: string, description?: string): void {
    const { queue, message } = this.#held(receipt);
    if (!this.#moveToDeadLetter(queue, message, reason, description))
      throw new QueueError("Unsupported", `queue ${queue.name} has no dead-letter queue`);
  }

  /** Extends a lock to the queue's lock duration from now; returns the new end. */
  renew(receipt: string): number {
    const { queue, message } = this.#held(receipt);
    message.lockedUntil = this.#now + queue.settings.lockDurationMs;
    return message.lockedUntil;
  }

  /** Removes every message of a queue, locked ones included; returns how many. */
  purge(queueName: string): number {
    const queue = this.#queue(queueName);
    const count = queue.messages.length;
    queue.messages = [];
    return count;
  }

  /** Counts a queue's messages by state, and those in its dead-letter queue. */
  stats(queueName: string): QueueStats {
    const queue = this.#queue(queueName);
    const count = (state: MessageState) => queue.messages.filter((message) => message.state === state).length;
    const dead =
      queue.settings.deadLetterQueue === null ? undefined : this.#queues.get(queue.settings.deadLetterQueue);
    return {
      active: count("ready"),
      inFlight: count("locked"),
      delayed: count("delayed"),
      deadLettered: dead?.messages.length ?? 0,
    };
  }

  /** The bodies a queue holds now, by state (what it would deliver, and when). */
  contents(queueName: string): { ready: string[]; delayed: string[]; locked: string[] } {
    const queue = this.#queue(queueName);
    const of = (state: MessageState) => queue.messages.filter((m) => m.state === state).map((m) => m.body);
    return { ready: of("ready"), delayed: of("delayed"), locked: of("locked") };
  }

  #queue(name: string): ModelQueue {
    const queue = this.#queues.get(name);
    if (queue === undefined) throw new QueueError("QueueNotFound", `queue ${name} does not exist`);
    return queue;
  }

  #holder(receipt: string): { queue: ModelQueue; message: ModelMessage } | undefined {
    for (const queue of this.#queues.values())
      for (const message of queue.messages)
        if (message.lock === receipt && message.state === "locked" && message.lockedUntil > this.#now)
          return { queue, message };
    return undefined;
  }

  // A receipt holds only while its lock is the message's current one and has not ended.
  #held(receipt: string): { queue: ModelQueue; message: ModelMessage } {
    const held = this.#holder(receipt);
    if (held === undefined)
      throw new QueueError("InvalidReceipt", "the lock of this receipt ended, was replaced or was settled");
    return held;
  }

  #exhausted(queue: ModelQueue, message: ModelMessage): boolean {
    const max = queue.settings.maxDeliveryCount;
    return max !== null && message.deliveryCount >= max;
  }

  // A lock that ends (abandon or expiry): out of deliveries → dead letter; out of time → expired; else visible again.
  #release(queue: ModelQueue, message: ModelMessage, visibleAt: number): void {
    message.lock = null;
    if (
      this.#exhausted(queue, message) &&
      this.#moveToDeadLetter(queue, message, MODEL_REASONS.maxDeliveryCount)
    )
      return;
    if (message.expiresAt !== null && message.expiresAt <= this.#now) {
      this.#expire(queue, message);
      return;
    }
    message.state = visibleAt > this.#now ? "delayed" : "ready";
    message.visibleAt = visibleAt;
  }

  // Messages whose time to live ended go to the dead-letter queue (TTLExpired), or away when there is none.
  #expire(queue: ModelQueue, message: ModelMessage): void {
    if (!this.#moveToDeadLetter(queue, message, MODEL_REASONS.expired)) remove(queue, message);
  }

  // A dead letter is a fresh message of the dead-letter queue: ready, never delivered, no time to live.
  #moveToDeadLetter(queue: ModelQueue, message: ModelMessage, reason: string, description?: string): boolean {
    const targetName = queue.settings.deadLetterQueue;
    if (targetName === null) return false;
    let target = this.#queues.get(targetName);
    if (target === undefined) {
      target = {
        name: targetName,
        settings: deadLetterSettings(queue.settings),
        messages: [],
        duplicates: new Map(),
      };
      this.#queues.set(targetName, target);
    }
    remove(queue, message);
    target.messages.push({
      body: message.body,
      state: "ready",
      visibleAt: this.#now,
      lockedUntil: 0,
      lock: null,
      deliveryCount: 0,
      expiresAt: null,
      deadLetter: { reason, description, sourceQueue: queue.name },
    });
    return true;
  }

  // Applies everything due by now; the outcome does not depend on the order (dead-letter queues are compared as sets).
  #applyTime(): void {
    for (const queue of [...this.#queues.values()])
      for (const message of [...queue.messages]) {
        if (message.state === "locked" && message.lockedUntil <= this.#now)
          this.#release(queue, message, message.lockedUntil);
        if (message.state === "delayed" && message.visibleAt <= this.#now) message.state = "ready";
        if (message.state !== "locked" && message.expiresAt !== null && message.expiresAt <= this.#now)
          this.#expire(queue, message);
      }
  }
}

/** A dead-letter queue made for `source`: same lock duration, never dead-letters, nothing expires. */
function deadLetterSettings(source: QueueSettings): QueueSettings {
  return {
    lockDurationMs: source.lockDurationMs,
    maxDeliveryCount: null,
    deadLetterQueue: null,
    defaultDelayMs: 0,
    defaultTimeToLiveMs: null,
    deduplicationWindowMs: 0,
  };
}

/** Takes a message out of its queue. */
function remove(queue: ModelQueue, message: ModelMessage): void {
  queue.messages = queue.messages.filter((other) => other !== message);
}
