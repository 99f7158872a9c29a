import type { QueueInfo, QueueOptions, QueueStats } from "../core/admin.js";
import { type Clock, systemClock } from "../core/clock.js";
import { QueueError } from "../core/errors.js";
import { Waiters } from "../core/waiters.js";
import { type QueueDefaults, resolveQueueDefaults } from "../rules/queue-defaults.js";
import type { QueueRecord } from "../rules/queue-records.js";
import { queueInfo, queueRecord } from "../rules/queue-records.js";
import { type EngineContext, existingQueue, storeNewQueue, tokenSource } from "./context.js";
import { type RedriveOptions, redrive } from "./dead-letters.js";
import { cancelScheduled, defer, receiveDeferred } from "./deferral.js";
import { type EngineMessage, receive, type SendOutcome, send } from "./delivery.js";
import { EngineTopics } from "./engine-topics.js";
import { maintain, maintainSourcesOf, releaseGroupIfIdle } from "./maintenance.js";
import type { FieldEdit, LockReference, MessageRecord } from "./records.js";
import {
  acceptSession,
  closeSession,
  getSessionState,
  receiveFromSession,
  releaseSessions,
  renewSession,
  type SessionLock,
  setSessionState,
} from "./sessions.js";
import {
  abandon,
  complete,
  deadLetter,
  extendLock,
  giveBack,
  relock,
  type SettleOptions,
} from "./settlement.js";
import type { QueueStore } from "./store.js";

/** Turns a record just locked for a receiver into what the receiver gets. */
export type Deliver<T> = (record: MessageRecord) => T;

/** How a receive waits and locks. */
export interface ReceiveOptions {
  /** How long to wait for a first message (default 0). */
  waitMs?: number;
  /** Ends the wait early. */
  signal?: AbortSignal | undefined;
  /** Overrides the queue's lock duration for these messages. */
  lockDurationMs?: number | undefined;
  /**
   * Runs the first try, for example in a group commit with other writes; at once by default.
   * When it finds nothing and the receive waits, the receive tries again at once before waiting.
   */
  firstTry?: RunWrite | undefined;
}

/** Runs a write: at once, or later (in a group commit), resolving with its result. */
export type RunWrite = <T>(write: () => T) => T | Promise<T>;

/** Runs a write at once. */
export const runNow: RunWrite = (write) => write();

/** How an engine behaves; every field has a default. */
export interface EngineOptions extends Partial<QueueDefaults> {
  clock?: Clock;
  /** Create a queue on first use instead of failing with `QueueNotFound` (default true). */
  createQueues?: boolean;
  /**
   * How often a waiting receive looks for changes made by other processes sharing the store;
   * unset for stores no other process can write.
   */
  pollIntervalMs?: number;
}

/**
 * The queue model, written once over a {@link QueueStore}: standard and FIFO queues, locks and
 * delivery counts, dead letters and redrive, delays, time to live, deduplication, sessions and
 * their state. Every operation is one store transaction; waiting receives are woken by the
 * operation that feeds them.
 */
export class QueueEngine {
  /** Topics, their subscriptions (queues named by their paths) and rules. */
  readonly topics: EngineTopics;
  readonly #context: EngineContext;
  readonly #pollIntervalMs: number | undefined;

  constructor(store: QueueStore, options: EngineOptions = {}) {
    const clock = options.clock ?? systemClock;
    this.#context = {
      store,
      clock,
      defaults: resolveQueueDefaults(options),
      waiters: new Waiters(clock),
      createQueues: options.createQueues ?? true,
      newToken: tokenSource(),
    };
    this.#pollIntervalMs = options.pollIntervalMs;
    this.topics = new EngineTopics(this.#context);
  }

  /** The clock the engine keeps time by. */
  get clock(): Clock {
    return this.#context.clock;
  }

  /** The defaults queues are created with. */
  get defaults(): QueueDefaults {
    return this.#context.defaults;
  }

  /** Runs `fn` as one store transaction; engine calls inside it join it. */
  transaction<T>(fn: () => T): T {
    return this.#context.store.transaction(fn);
  }

  /** Stores messages; one outcome per message, in order. */
  send(queue: string, messages: readonly EngineMessage[]): SendOutcome[] {
    return send(this.#context, queue, messages);
  }

  /**
   * Receives up to `max` messages, waiting up to `waitMs` for the first. Each locked record is
   * handed to `deliver` at once, inside the receive, so the caller sees it exactly as locked.
   */
  receive<T>(queue: string, max: number, deliver: Deliver<T>, options: ReceiveOptions = {}): Promise<T[]> {
    const { waitMs = 0, signal, lockDurationMs, firstTry } = options;
    return this.#untilSome(
      queue,
      waitMs,
      signal,
      () => receive(this.#context, queue, max, lockDurationMs).map(deliver),
      firstTry,
    );
  }

  /** Removes a locked message for good. */
  complete(lock: LockReference, options?: SettleOptions): void {
    complete(this.#context, lock, options);
  }

  /** Releases a lock; the message is delivered again after `delayMs`, its fields changed by `edit` when given. */
  abandon(lock: LockReference, delayMs = 0, edit?: FieldEdit): void {
    abandon(this.#context, lock, delayMs, edit);
  }

  /** Releases a lock a receiver never saw at once, without counting the delivery. */
  giveBack(lock: LockReference): void {
    giveBack(this.#context, lock);
  }

  /** The token of a message's latest lock (`null` before its first), or `undefined` when there is no such message. */
  lockTokenOf(queue: string, seq: number): string | null | undefined {
    const { store } = this.#context;
    return store.transaction(() => store.getLock(queue, seq)?.lockToken);
  }

  /** Sets a locked message aside until it is asked for by its sequence number (Service Bus's defer), its fields changed by `edit` when given. */
  defer(lock: LockReference, edit?: FieldEdit): void {
    defer(this.#context, lock, edit);
  }

  /** Locks deferred messages by sequence number; a number that is not one fails with `MessageNotFound`. */
  receiveDeferred<T>(
    queue: string,
    seqs: readonly number[],
    deliver: Deliver<T>,
    lockDurationMs?: number,
  ): T[] {
    return receiveDeferred(this.#context, queue, seqs, lockDurationMs).map(deliver);
  }

  /** Removes delayed messages not yet delivered; resolves how many went. */
  cancelScheduled(queue: string, seqs: readonly number[]): number {
    return cancelScheduled(this.#context, queue, seqs);
  }

  /** Up to `max` messages from sequence number `fromSeq` on, in order, whatever their state; nothing changes. */
  peek(queue: string, fromSeq: number, max: number): MessageRecord[] {
    const { store } = this.#context;
    return store.transaction(() =>
      store.peekMessages(existingQueue(this.#context, queue).name, fromSeq, max),
    );
  }

  /** Moves a locked message to the dead-letter queue, its fields changed by `edit` when given. */
  deadLetter(lock: LockReference, reason: string, description?: string, edit?: FieldEdit): void {
    deadLetter(this.#context, lock, reason, description, edit);
  }

  /** Sets a message lock to end `durationMs` from now (the queue's lock duration by default; 0 releases it); returns the new expiry. */
  extendLock(lock: LockReference, durationMs?: number): number {
    return extendLock(this.#context, lock, durationMs).visibleAt;
  }

  /** Sets a message lock to end `durationMs` from now and hands the message, as locked, to `deliver`. */
  relock<T>(lock: LockReference, durationMs: number, deliver: Deliver<T>): T {
    return deliver(relock(this.#context, lock, durationMs));
  }

  /**
   * Locks a session now, without waiting: the one named (`SessionLocked` while another holds it)
   * or the next with messages (`undefined` when none is free), for `lockDurationMs` (the
   * engine's session lock duration by default) from now and from each renewal. The lock's token
   * starts with `holder` (see {@link releaseSessions}).
   */
  tryAcceptSession(
    queue: string,
    sessionId: string | undefined,
    lockDurationMs?: number,
    holder?: string,
  ): SessionLock | undefined {
    return acceptSession(this.#context, queue, sessionId, lockDurationMs, holder);
  }

  /** Releases the sessions of a queue whose lock token `isGone` says belongs to a holder that no longer exists; returns how many. */
  releaseSessions(queue: string, isGone: (lockToken: string) => boolean): number {
    return releaseSessions(this.#context, queue, isGone);
  }

  /** Locks a session (the one named, or the next available within `waitMs`); `NoSessionAvailable` when none came. */
  async acceptSession(
    queue: string,
    sessionId: string | undefined,
    waitMs = 0,
    signal?: AbortSignal,
  ): Promise<SessionLock> {
    const lock = await this.#until(queue, sessionId === undefined ? waitMs : 0, signal, () =>
      acceptSession(this.#context, queue, sessionId),
    );
    if (lock === undefined)
      throw new QueueError("NoSessionAvailable", `no session of ${queue} with messages is free to accept`);
    return lock;
  }

  /** Receives up to `max` messages of a held session in order, each handed to `deliver` as it is locked. */
  receiveFromSession<T>(
    lock: SessionLock,
    max: number,
    deliver: Deliver<T>,
    options: ReceiveOptions = {},
  ): Promise<T[]> {
    const { waitMs = 0, signal } = options;
    return this.#untilSome(lock.queue, waitMs, signal, () =>
      receiveFromSession(this.#context, lock, max).map(deliver),
    );
  }

  /** Extends a session lock from now; returns the new expiry. */
  renewSession(lock: SessionLock): number {
    return renewSession(this.#context, lock);
  }

  /** Releases a session lock. */
  closeSession(lock: SessionLock): void {
    closeSession(this.#context, lock);
  }

  /** The state of a held session. */
  getSessionState(lock: SessionLock): Uint8Array | null {
    return getSessionState(this.#context, lock);
  }

  /** Stores the state of a held session. */
  setSessionState(lock: SessionLock, state: Uint8Array | null): void {
    setSessionState(this.#context, lock, state);
  }

  /** Creates a queue; `QueueAlreadyExists` when one has that name. */
  createQueue(name: string, options: QueueOptions & { properties?: Record<string, string> } = {}): QueueInfo {
    const record = queueRecord(name, options, this.#context.defaults, this.#context.clock.now());
    return this.#context.store.transaction(() => {
      if (this.#context.store.getQueue(name) !== undefined)
        throw new QueueError("QueueAlreadyExists", `queue ${name} already exists`);
      storeNewQueue(this.#context, record);
      return queueInfo(record);
    });
  }

  /** Creates a queue from a complete record (for protocol servers with defaults of their own). */
  insertQueue(record: QueueRecord): void {
    this.#context.store.transaction(() => {
      if (this.#context.store.getQueue(record.name) !== undefined)
        throw new QueueError("QueueAlreadyExists", `queue ${record.name} already exists`);
      this.#context.store.putQueue(record);
    });
  }

  /** Replaces a queue's settings (its messages stay). */
  updateQueue(record: QueueRecord): void {
    this.#context.store.transaction(() => {
      existingQueue(this.#context, record.name);
      this.#context.store.putQueue(record);
    });
    this.#context.waiters.notify(record.name);
  }

  /** Deletes a queue and its messages. */
  deleteQueue(name: string): void {
    this.#context.store.transaction(() => {
      existingQueue(this.#context, name);
      this.#context.store.deleteQueue(name);
    });
    this.#context.waiters.notify(name);
  }

  /** The stored record of a queue, or `undefined`; read without taking the write lock (a server asks on every request). */
  getQueueRecord(name: string): QueueRecord | undefined {
    return this.#context.store.getQueue(name);
  }

  /** Every queue, sorted by name. */
  listQueues(): QueueRecord[] {
    return this.#context.store.transaction(() => this.#context.store.listQueues());
  }

  /** How many receives wait on a queue now (long polls), in this process. */
  waitingReceivers(name: string): number {
    return this.#context.waiters.count(name);
  }

  /** Counts of a queue's messages by state, after applying what time has done. */
  stats(name: string): QueueStats {
    const { store } = this.#context;
    return store.transaction(() => {
      const queue = existingQueue(this.#context, name);
      const now = this.#context.clock.now();
      maintain(this.#context, queue, now);
      maintainSourcesOf(this.#context, name, now);
      const counts = store.countMessages(name);
      let deadLettered = 0;
      const deadLetters = queue.deadLetterQueue === null ? undefined : store.getQueue(queue.deadLetterQueue);
      if (deadLetters !== undefined) {
        // Dead letters whose time to live ran out are gone before they are counted.
        maintain(this.#context, deadLetters, now);
        const dead = store.countMessages(deadLetters.name);
        deadLettered = dead.ready + dead.delayed + dead.locked;
      }
      return { active: counts.ready, inFlight: counts.locked, delayed: counts.delayed, deadLettered };
    });
  }

  /**
   * Removes every message of a queue, those in flight included; returns how many. The groups of a
   * FIFO queue that its messages in flight held are free at once (a session a receiver accepted
   * stays its own).
   */
  purge(name: string): number {
    const { store } = this.#context;
    return store.transaction(() => {
      const queue = existingQueue(this.#context, name);
      const counts = queue.fifo ? store.countMessages(name) : undefined;
      const heldGroups =
        counts === undefined
          ? []
          : store
              .dueMessages(name, Number.MAX_SAFE_INTEGER, counts.locked + counts.delayed)
              .filter((message) => message.state === "locked" && message.sessionId !== undefined)
              .map((message) => message.sessionId!);
      const purged = store.purgeMessages(name);
      const now = this.#context.clock.now();
      for (const sessionId of new Set(heldGroups)) releaseGroupIfIdle(this.#context, queue, sessionId, now);
      return purged;
    });
  }

  /** Moves dead letters back to their source queue or to `options.target`; returns how many. */
  redrive(deadLetterQueue: string, options?: RedriveOptions): number {
    return redrive(this.#context, deadLetterQueue, options);
  }

  /** Wakes every waiting receive (they then find nothing and end) and closes the store (see {@link QueueStore.close}). */
  close(): void | Promise<void> {
    this.#context.waiters.notifyAll();
    return this.#context.store.close();
  }

  /** Wakes every waiting receive, for example after another process changed the store. */
  wakeAll(): void {
    this.#context.waiters.notifyAll();
  }

  #untilSome<T>(
    queue: string,
    waitMs: number,
    signal: AbortSignal | undefined,
    attempt: () => T[],
    firstTry?: RunWrite,
  ): Promise<T[]> {
    return this.#until(
      queue,
      waitMs,
      signal,
      () => {
        const got = attempt();
        return got.length > 0 ? got : undefined;
      },
      firstTry,
    ).then((got) => got ?? []);
  }

  // Tries at once, then again each time the queue changes or something on it falls due, until the wait ends.
  async #until<T>(
    queue: string,
    waitMs: number,
    signal: AbortSignal | undefined,
    attempt: () => T | undefined,
    firstTry?: RunWrite,
  ): Promise<T | undefined> {
    const { clock, store, waiters } = this.#context;
    const deadline = clock.now() + waitMs;
    let dueAt = deadline;
    const tried = (firstTry ?? runNow)(attempt);
    let got: T | undefined;
    if (tried instanceof Promise) {
      try {
        got = await tried;
      } catch (error) {
        // The caller went away (its client closed) while the try waited for its commit: it gets nothing.
        if (signal?.aborted) return undefined;
        throw error;
      }
    } else got = tried;
    if (got !== undefined || signal?.aborted) return got;
    // A try that waited for its commit is made again at once if the receive may wait: a send may have come meanwhile.
    let tryNow = tried instanceof Promise && clock.now() < deadline;
    for (;;) {
      if (tryNow) {
        got = attempt();
        if (got !== undefined) return got;
      }
      const now = clock.now();
      if (now >= deadline) return undefined;
      dueAt = Math.min(deadline, store.transaction(() => store.nextWakeAt(queue, now)) ?? deadline);
      const wakeAt = this.#pollIntervalMs === undefined ? dueAt : Math.min(dueAt, now + this.#pollIntervalMs);
      const notified = await waiters.wait(queue, Math.max(wakeAt, now + 1), signal);
      if (signal?.aborted) return undefined;
      // A poll tick tries again only when another process changed the store; a wake-up or a due time always does.
      tryNow = notified || clock.now() >= dueAt || this.#changedElsewhere();
    }
  }

  /**
   * Whether another process changed the store since this process last looked. The store answers
   * once per change for the whole process, so every waiter here is woken to try again, not just
   * the one that asked (the others would sleep out their whole wait).
   */
  #changedElsewhere(): boolean {
    const { store, waiters } = this.#context;
    if (store.changedElsewhere === undefined) return true;
    if (!store.changedElsewhere()) return false;
    waiters.notifyAll();
    return true;
  }
}
