import type { QueueStats } from "../../core/admin.js";
import { QueueError } from "../../core/errors.js";

/**
 * A reference model of the shared semantics (docs: shared/spec/semantics.md), standard and FIFO
 * queues with sessions, written to be read, not to be fast: every message is an object in an
 * array in arrival order, and time is a number of ms that only `advance` moves. Everything time
 * does (delays ending, locks ending, time to live ending) is applied eagerly, so the model's state
 * at any instant follows from the semantics alone, not from when a provider happens to look.
 *
 * FIFO queues: every message names a session (message group). A group is locked while a session
 * accepted on it holds it, or while a plain receive's messages of it are locked; a receive takes
 * the free groups whole, in the order of their oldest ready message.
 */

/** The options of a queue the model knows. */
export interface ModelQueueOptions {
  /** Messages carry a session id and are delivered in order per session. */
  fifo?: boolean;
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
  sessionId?: string;
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

/** A session the model let a receiver accept. */
export interface ModelSession {
  /** The model's opaque handle of this acceptance. */
  readonly token: string;
  readonly sessionId: string;
  readonly lockedUntil: number;
}

/** The defaults of the engine providers (memory, sqlite), which the model follows. */
export const MODEL_DEFAULTS = {
  lockDurationMs: 30_000,
  maxDeliveryCount: 10,
  deduplicationWindowMs: 300_000,
  sessionLockDurationMs: 60_000,
} as const;

/** How a provider's semantics depart from the defaults, where the semantics leave room. */
export interface ModelOptions {
  /** How long an accepted session stays held without renewal. */
  sessionLockDurationMs?: number;
}

/** The reasons the queue itself dead-letters with (named as in the engine). */
export const MODEL_REASONS = { maxDeliveryCount: "MaxDeliveryCountExceeded", expired: "TTLExpired" } as const;

interface QueueSettings {
  readonly fifo: boolean;
  readonly lockDurationMs: number;
  readonly maxDeliveryCount: number | null;
  readonly deadLetterQueue: string | null;
  readonly defaultDelayMs: number;
  readonly defaultTimeToLiveMs: number | null;
  readonly deduplicationWindowMs: number;
}

type MessageState = "ready" | "delayed" | "locked";

/** What a peek calls each state. */
const PEEKED_STATE = { ready: "active", delayed: "delayed", locked: "inFlight" } as const;

interface ModelMessage {
  readonly body: string;
  readonly sessionId: string | undefined;
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
  /** The latest session accepted on each group (it holds the group until `lockedUntil`). */
  readonly holds: Map<string, { token: string; lockedUntil: number }>;
  /** Session state, kept across holders. */
  readonly states: Map<string, string>;
}

/** A queue with nothing in it. */
function emptyQueue(name: string, settings: QueueSettings): ModelQueue {
  return { name, settings, messages: [], duplicates: new Map(), holds: new Map(), states: new Map() };
}

/** The reference model: queues, messages, locks, sessions and a virtual clock. */
export class QueueModel {
  #now: number;
  #tokens = 0;
  readonly #queues = new Map<string, ModelQueue>();
  /** Every session handle given out: where it points, and whether its client closed it. */
  readonly #sessions = new Map<string, { queue: string; sessionId: string; closed: boolean }>();
  readonly #sessionLockDurationMs: number;
  /** Queues that took dead letters or redriven messages (see {@link orderUnspecified}). */
  readonly #unordered = new Set<string>();

  /** Starts the model's clock at `startMs` (give it the provider's virtual clock's start). */
  constructor(startMs: number, options: ModelOptions = {}) {
    this.#now = startMs;
    this.#sessionLockDurationMs = options.sessionLockDurationMs ?? MODEL_DEFAULTS.sessionLockDurationMs;
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

  /** Whether `name` is a FIFO queue (false when it does not exist). */
  isFifo(name: string): boolean {
    return this.#queues.get(name)?.settings.fifo ?? false;
  }

  /**
   * True when the order of `name`'s messages is not the semantics' business: a queue that takes
   * or took dead letters (they arrive as time moves them, in no specified order), or that a
   * redrive filled from one.
   */
  orderUnspecified(name: string): boolean {
    return (
      this.#unordered.has(name) ||
      [...this.#queues.values()].some((queue) => queue.settings.deadLetterQueue === name)
    );
  }

  /** Every future instant at which something changes by itself (a lock, delay, session or time to live ends). */
  dueTimes(): number[] {
    const times: number[] = [];
    for (const queue of this.#queues.values()) {
      for (const message of queue.messages) {
        if (message.state === "locked") times.push(message.lockedUntil);
        if (message.state === "delayed") times.push(message.visibleAt);
        if (message.expiresAt !== null) times.push(message.expiresAt);
      }
      for (const hold of queue.holds.values()) times.push(hold.lockedUntil);
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
      fifo: options.fifo ?? false,
      lockDurationMs: options.lockDurationMs ?? MODEL_DEFAULTS.lockDurationMs,
      maxDeliveryCount:
        options.maxDeliveryCount === undefined ? MODEL_DEFAULTS.maxDeliveryCount : options.maxDeliveryCount,
      deadLetterQueue: options.deadLetterQueue === undefined ? `${name}-dlq` : options.deadLetterQueue,
      defaultDelayMs: options.defaultDelayMs ?? 0,
      defaultTimeToLiveMs: options.defaultTimeToLiveMs ?? null,
      deduplicationWindowMs: options.deduplicationWindowMs ?? MODEL_DEFAULTS.deduplicationWindowMs,
    };
    this.#queues.set(name, emptyQueue(name, settings));
    this.#deadLetterQueueOf(settings);
  }

  /** Deletes a queue with its messages, sessions and duplicates; its dead-letter queue stays. */
  deleteQueue(name: string): void {
    this.#queue(name);
    this.#queues.delete(name);
  }

  /** Sends a message; returns the body of the message stored (the original one for a repeated deduplication id). */
  send(queueName: string, message: ModelSend): string {
    const queue = this.#queue(queueName);
    const { settings } = queue;
    if (settings.fifo && message.sessionId === undefined)
      throw new QueueError(
        "Validation",
        `queue ${queueName} is a FIFO queue: every message needs a sessionId`,
      );
    const dedupId = settings.deduplicationWindowMs > 0 ? message.deduplicationId : undefined;
    if (dedupId !== undefined) {
      const original = queue.duplicates.get(dedupId);
      if (original !== undefined && original.until > this.#now) return original.body;
    }
    const delayMs = message.delayMs ?? settings.defaultDelayMs;
    const timeToLiveMs = message.timeToLiveMs ?? settings.defaultTimeToLiveMs;
    queue.messages.push({
      body: message.body,
      sessionId: message.sessionId,
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

  /**
   * Sends messages one by one, as one call: each entry's outcome, the body stored or the code of
   * the error it was refused with; a refused entry does not stop the rest.
   */
  sendBatch(queueName: string, messages: readonly ModelSend[]): ({ body: string } | { code: string })[] {
    this.#queue(queueName);
    return messages.map((message) => {
      try {
        return { body: this.send(queueName, message) };
      } catch (error) {
        if (error instanceof QueueError) return { code: error.code };
        throw error;
      }
    });
  }

  /** Locks up to `max` ready messages, oldest first (on a FIFO queue, free groups whole), each for the queue's lock duration. */
  receive(queueName: string, max: number): ModelDelivery[] {
    const queue = this.#queue(queueName);
    const lockedUntil = this.#now + queue.settings.lockDurationMs;
    if (!queue.settings.fifo)
      return this.#ready(queue)
        .slice(0, max)
        .map((message) => this.#lock(message, lockedUntil));
    const received: ModelDelivery[] = [];
    for (const sessionId of this.#freeGroups(queue)) {
      // A plain receive's locks replace whatever session held the group before.
      queue.holds.delete(sessionId);
      for (const message of this.#ready(queue, sessionId)) {
        if (received.length >= max) break;
        received.push(this.#lock(message, lockedUntil));
      }
      if (received.length >= max) break;
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

  /** Extends a lock to the queue's lock duration from now; returns the new end. Messages of an accepted session follow its lock. */
  renew(receipt: string): number {
    const { queue, message } = this.#held(receipt);
    if (message.sessionId !== undefined && queue.holds.has(message.sessionId))
      throw new QueueError("Unsupported", "messages of an accepted session are locked by the session");
    message.lockedUntil = this.#now + queue.settings.lockDurationMs;
    return message.lockedUntil;
  }

  /** Removes every message of a queue, locked ones included; returns how many. Accepted sessions stay held. */
  purge(queueName: string): number {
    const queue = this.#queue(queueName);
    const count = queue.messages.length;
    queue.messages = [];
    return count;
  }

  /**
   * Moves the ready messages of `deadLetterQueue` (on a FIFO queue, those of free groups) back to
   * the queue each came from, or to `target`: fresh messages without the dead-letter marks or a
   * time to live. Those with nowhere to go stay. Returns how many moved.
   */
  redrive(deadLetterQueue: string, target?: string): number {
    const from = this.#queue(deadLetterQueue);
    if (target !== undefined) this.#queue(target);
    const ready = from.settings.fifo
      ? this.#freeGroups(from).flatMap((sessionId) => this.#ready(from, sessionId))
      : this.#ready(from);
    let moved = 0;
    for (const message of ready) {
      const to = this.#queues.get(target ?? message.deadLetter?.sourceQueue ?? "");
      if (to === undefined || to === from) continue;
      remove(from, message);
      to.messages.push({
        ...fresh(message),
        // A FIFO queue needs a session: a message without one joins one named after the queue it leaves.
        sessionId: to.settings.fifo ? (message.sessionId ?? from.name) : message.sessionId,
        deadLetter: undefined,
      });
      this.#unordered.add(to.name);
      moved++;
    }
    return moved;
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

  /** Each message a queue holds now as `body:state` (a peek's states: active, inFlight, delayed), sorted. */
  contents(queueName: string): string[] {
    return this.#queue(queueName)
      .messages.map((message) => `${message.body}:${PEEKED_STATE[message.state]}`)
      .sort();
  }

  /**
   * Accepts a session: the one named (`SessionLocked` while its group is locked), or the free
   * group whose oldest ready message is oldest (`NoSessionAvailable` when there is none).
   */
  acceptSession(queueName: string, sessionId?: string): ModelSession {
    const queue = this.#queue(queueName);
    if (!queue.settings.fifo) throw new QueueError("Unsupported", `queue ${queueName} has no sessions`);
    const id = sessionId ?? this.#freeGroups(queue)[0];
    if (id === undefined) throw new QueueError("NoSessionAvailable", `no session of ${queueName} is free`);
    if (this.#groupLocked(queue, id))
      throw new QueueError("SessionLocked", `session ${id} of ${queueName} is held by another receiver`);
    const token = `session-${++this.#tokens}`;
    const lockedUntil = this.#now + this.#sessionLockDurationMs;
    queue.holds.set(id, { token, lockedUntil });
    this.#sessions.set(token, { queue: queueName, sessionId: id, closed: false });
    return { token, sessionId: id, lockedUntil };
  }

  /** Locks up to `max` ready messages of a held session, in order, until the session's lock ends. */
  receiveFromSession(token: string, max: number): ModelDelivery[] {
    const { queue, sessionId, hold } = this.#heldSession(token);
    return this.#ready(queue, sessionId)
      .slice(0, max)
      .map((message) => this.#lock(message, hold.lockedUntil));
  }

  /** Extends a session's lock, and its locked messages', to the session lock duration from now; returns the new end. */
  renewSession(token: string): number {
    const { queue, sessionId, hold } = this.#heldSession(token);
    hold.lockedUntil = this.#now + this.#sessionLockDurationMs;
    for (const message of queue.messages)
      if (message.sessionId === sessionId && message.state === "locked")
        message.lockedUntil = hold.lockedUntil;
    return hold.lockedUntil;
  }

  /** The state kept with a held session (`null` when none was set). */
  sessionState(token: string): string | null {
    const { queue, sessionId } = this.#heldSession(token);
    return queue.states.get(sessionId) ?? null;
  }

  /** Sets (or with `null` clears) the state of a held session. */
  setSessionState(token: string, state: string | null): void {
    const { queue, sessionId } = this.#heldSession(token);
    if (state === null) queue.states.delete(sessionId);
    else queue.states.set(sessionId, state);
  }

  /** Ends a session: its locked messages are ready again at once; a lock already lost or replaced is left alone. */
  closeSession(token: string): void {
    const session = this.#sessions.get(token);
    if (session === undefined || session.closed) return;
    session.closed = true;
    const queue = this.#queues.get(session.queue);
    if (queue === undefined || queue.holds.get(session.sessionId)?.token !== token) return;
    queue.holds.delete(session.sessionId);
    for (const message of [...queue.messages])
      if (message.sessionId === session.sessionId && message.state === "locked")
        this.#release(queue, message, this.#now);
  }

  #queue(name: string): ModelQueue {
    const queue = this.#queues.get(name);
    if (queue === undefined) throw new QueueError("QueueNotFound", `queue ${name} does not exist`);
    return queue;
  }

  // The dead-letter queue a queue's settings name, made like its source when it is missing.
  #deadLetterQueueOf(settings: QueueSettings): ModelQueue | undefined {
    const name = settings.deadLetterQueue;
    if (name === null) return undefined;
    let queue = this.#queues.get(name);
    if (queue === undefined) {
      queue = emptyQueue(name, deadLetterSettings(settings));
      this.#queues.set(name, queue);
    }
    return queue;
  }

  // Ready messages in arrival order; of one group when `sessionId` is given.
  #ready(queue: ModelQueue, sessionId?: string): ModelMessage[] {
    return queue.messages.filter(
      (message) => message.state === "ready" && (sessionId === undefined || message.sessionId === sessionId),
    );
  }

  #groupLocked(queue: ModelQueue, sessionId: string): boolean {
    const hold = queue.holds.get(sessionId);
    return (
      (hold !== undefined && hold.lockedUntil > this.#now) ||
      queue.messages.some((message) => message.sessionId === sessionId && message.state === "locked")
    );
  }

  // Groups with a ready message that nobody locks, in the order of their oldest ready message.
  #freeGroups(queue: ModelQueue): string[] {
    const groups = new Set<string>();
    for (const message of this.#ready(queue))
      if (message.sessionId !== undefined && !this.#groupLocked(queue, message.sessionId))
        groups.add(message.sessionId);
    return [...groups];
  }

  #lock(message: ModelMessage, lockedUntil: number): ModelDelivery {
    message.state = "locked";
    message.lock = `lock-${++this.#tokens}`;
    message.lockedUntil = lockedUntil;
    message.deliveryCount++;
    return {
      receipt: message.lock,
      body: message.body,
      deliveryCount: message.deliveryCount,
      lockedUntil,
      deadLetter: message.deadLetter,
    };
  }

  #heldSession(token: string) {
    const session = this.#sessions.get(token);
    if (session === undefined || session.closed)
      throw new QueueError("ClientClosed", "this session has been closed");
    const queue = this.#queues.get(session.queue);
    const hold = queue?.holds.get(session.sessionId);
    if (queue === undefined || hold === undefined || hold.token !== token || hold.lockedUntil <= this.#now)
      throw new QueueError(
        "SessionLockLost",
        `the lock on session ${session.sessionId} has expired or was released`,
      );
    return { queue, sessionId: session.sessionId, hold };
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

  // A lock that ends (abandon, expiry, a closed session): out of deliveries → dead letter; out of time → expired; else visible again.
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
    const target = this.#deadLetterQueueOf(queue.settings);
    if (target === undefined) return false;
    remove(queue, message);
    target.messages.push({ ...fresh(message), deadLetter: { reason, description, sourceQueue: queue.name } });
    this.#unordered.add(target.name);
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

/** A dead-letter queue made for `source`: same kind and lock duration, never dead-letters, nothing expires. */
function deadLetterSettings(source: QueueSettings): QueueSettings {
  return {
    fifo: source.fifo,
    lockDurationMs: source.lockDurationMs,
    maxDeliveryCount: null,
    deadLetterQueue: null,
    defaultDelayMs: 0,
    defaultTimeToLiveMs: null,
    deduplicationWindowMs: 0,
  };
}

/** A message as it arrives in another queue: ready, never delivered, no lock and no time to live. */
function fresh(message: ModelMessage): ModelMessage {
  return {
    ...message,
    state: "ready",
    visibleAt: 0,
    lockedUntil: 0,
    lock: null,
    deliveryCount: 0,
    expiresAt: null,
  };
}

/** Takes a message out of its queue. */
function remove(queue: ModelQueue, message: ModelMessage): void {
  queue.messages = queue.messages.filter((other) => other !== message);
}
