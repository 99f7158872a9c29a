import { QueueError } from "../../core/errors.js";
import type { NatsLink } from "./connection.js";
import { KvBucket } from "./kv-bucket.js";
import { lostRace, MAX_RACES } from "./kv-races.js";
import { sessionBucket, token } from "./names.js";

/** A session's record in the sessions bucket: who holds it until when, and its messages' deliveries. */
export interface SessionRecord {
  /** The holder's lock token, or null when nobody holds the session. */
  readonly owner: string | null;
  readonly expiresAt: number;
  /** Deliveries so far of the session's messages, by stream sequence (kept across holders). */
  readonly deliveries: Readonly<Record<string, number>>;
  /** Messages the holder received that another client gave back by their receipts, for the holder to let go. */
  readonly released?: readonly number[];
  /** The last delivery of each message given back, by stream sequence: a receipt of it or an earlier one holds no lock. */
  readonly spent?: Readonly<Record<string, number>>;
}

/** A session lock held: its record as last written and that write's revision. */
export interface HeldLock {
  record: SessionRecord;
  revision: number;
}

const utf8 = new TextEncoder();

/**
 * Session locks and states in a KV bucket per prefix. Every change of a lock is an update with
 * the revision it read (or a create when there was none), so of two processes racing for one
 * session exactly one wins; a lock ends at its stored expiry, after which another process takes
 * it over, again by revision.
 */
export class SessionLocks {
  readonly #link: NatsLink;
  readonly #bucket: KvBucket;

  constructor(link: NatsLink, prefix: string) {
    this.#link = link;
    this.#bucket = new KvBucket(link, sessionBucket(prefix), {});
  }

  static #key(queue: string, sessionId: string, part: "lock" | "state"): string {
    return `${token(queue)}.${token(sessionId)}.${part}`;
  }

  /**
   * Locks `sessionId` of `queue` for `owner` until `expiresAt`; `SessionLocked` when another
   * holder's lock has not ended (or another process won the race for it).
   */
  async acquire(
    queue: string,
    sessionId: string,
    owner: string,
    now: number,
    expiresAt: number,
  ): Promise<HeldLock> {
    const kv = await this.#bucket.open();
    const key = SessionLocks.#key(queue, sessionId, "lock");
    const entry = await this.#link.call(`reading session ${sessionId}`, () => kv.get(key));
    const current =
      entry === null || entry.operation !== "PUT" || entry.value.length === 0
        ? undefined
        : entry.json<SessionRecord>();
    if (current !== undefined && current.owner !== null && current.expiresAt > now)
      throw locked(queue, sessionId);
    const record: SessionRecord = { owner, expiresAt, deliveries: current?.deliveries ?? {} };
    try {
      const revision = await this.#link.call(`locking session ${sessionId}`, () =>
        entry === null
          ? kv.create(key, JSON.stringify(record))
          : kv.update(key, JSON.stringify(record), entry.revision),
      );
      return { record, revision };
    } catch (error) {
      if (lostRace(error)) throw locked(queue, sessionId);
      throw error;
    }
  }

  /** The record of a session as stored now, or undefined when it has none. */
  async read(queue: string, sessionId: string): Promise<SessionRecord | undefined> {
    const entry = await this.#bucket.entry(
      SessionLocks.#key(queue, sessionId, "lock"),
      `reading session ${sessionId}`,
    );
    return entry?.json<SessionRecord>();
  }

  /**
   * Changes the record of a session `owner` holds: reads it, applies `change`, writes it back
   * with the revision read, and on a race (another client marked a message given back) does it
   * again. `SessionLockLost` when the session is no longer `owner`'s or its lock has ended.
   */
  async update(
    queue: string,
    sessionId: string,
    owner: string,
    now: number,
    change: (record: SessionRecord) => SessionRecord,
  ): Promise<HeldLock> {
    const kv = await this.#bucket.open();
    const key = SessionLocks.#key(queue, sessionId, "lock");
    for (let attempt = 1; ; attempt++) {
      const entry = await this.#link.call(`reading session ${sessionId}`, () => kv.get(key));
      const current =
        entry === null || entry.operation !== "PUT" || entry.value.length === 0
          ? undefined
          : entry.json<SessionRecord>();
      if (entry === null || current === undefined || current.owner !== owner || current.expiresAt <= now)
        throw new QueueError("SessionLockLost", `the lock on session ${sessionId} of ${queue} has ended`);
      const record = change(current);
      try {
        const revision = await this.#link.call(`updating session ${sessionId}`, () =>
          kv.update(key, JSON.stringify(record), entry.revision),
        );
        return { record, revision };
      } catch (error) {
        // Others keep winning: fail rather than spin (the standard client may try again).
        if (!lostRace(error) || attempt >= MAX_RACES) throw error;
      }
    }
  }

  /** The state stored with a session, or null. */
  async state(queue: string, sessionId: string): Promise<Uint8Array | null> {
    const entry = await this.#bucket.entry(
      SessionLocks.#key(queue, sessionId, "state"),
      `reading the state of session ${sessionId}`,
    );
    if (entry === undefined) return null;
    // The first byte marks a stored state, so an empty state is told apart from none.
    return entry.value.slice(1);
  }

  /** Stores (or with null clears) a session's state. */
  async setState(queue: string, sessionId: string, state: Uint8Array | null): Promise<void> {
    const kv = await this.#bucket.open();
    const key = SessionLocks.#key(queue, sessionId, "state");
    await this.#link.call(`storing the state of session ${sessionId}`, async () => {
      if (state === null) await kv.delete(key);
      else {
        const stored = new Uint8Array(state.byteLength + 1);
        stored.set(utf8.encode("s"));
        stored.set(state, 1);
        await kv.put(key, stored);
      }
    });
  }

  /** Forgets every session of `queue` (it was deleted). */
  forgetQueue(queue: string): Promise<void> {
    return this.#bucket.forgetQueue(queue);
  }
}

function locked(queue: string, sessionId: string): QueueError {
  return new QueueError("SessionLocked", `session ${sessionId} of ${queue} is held by another receiver`);
}
