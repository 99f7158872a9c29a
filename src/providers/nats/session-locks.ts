import { type KV, Kvm } from "@nats-io/kv";
import { QueueError } from "../../core/errors.js";
import type { NatsLink } from "./connection.js";
import { apiCode } from "./errors.js";
import { sessionBucket, token } from "./names.js";

/** A session's record in the sessions bucket: who holds it until when, and its messages' deliveries. */
export interface SessionRecord {
  /** The holder's lock token, or null when nobody holds the session. */
  readonly owner: string | null;
  readonly expiresAt: number;
  /** Deliveries so far of the session's messages, by stream sequence (kept across holders). */
  readonly deliveries: Readonly<Record<string, number>>;
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
  readonly #prefix: string;
  #kv: Promise<KV> | undefined;

  constructor(link: NatsLink, prefix: string) {
    this.#link = link;
    this.#prefix = prefix;
  }

  #bucket(): Promise<KV> {
    this.#kv ??= this.#link
      .call("opening the sessions bucket", () =>
        new Kvm(this.#link.nc).create(sessionBucket(this.#prefix), { history: 1 }),
      )
      .catch((error: unknown) => {
        this.#kv = undefined;
        throw error;
      });
    return this.#kv;
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
    const kv = await this.#bucket();
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
    const kv = await this.#bucket();
    const entry = await this.#link.call(`reading session ${sessionId}`, () =>
      kv.get(SessionLocks.#key(queue, sessionId, "lock")),
    );
    return entry === null || entry.operation !== "PUT" || entry.value.length === 0
      ? undefined
      : entry.json<SessionRecord>();
  }

  /** Writes a new record of a held lock, revision-checked; `SessionLockLost` when another process changed it. */
  async write(queue: string, sessionId: string, held: HeldLock, record: SessionRecord): Promise<void> {
    const kv = await this.#bucket();
    try {
      held.revision = await this.#link.call(`updating session ${sessionId}`, () =>
        kv.update(SessionLocks.#key(queue, sessionId, "lock"), JSON.stringify(record), held.revision),
      );
      held.record = record;
    } catch (error) {
      if (lostRace(error))
        throw new QueueError(
          "SessionLockLost",
          `the lock on session ${sessionId} of ${queue} was taken over`,
          { cause: error },
        );
      throw error;
    }
  }

  /** The state stored with a session, or null. */
  async state(queue: string, sessionId: string): Promise<Uint8Array | null> {
    const kv = await this.#bucket();
    const entry = await this.#link.call(`reading the state of session ${sessionId}`, () =>
      kv.get(SessionLocks.#key(queue, sessionId, "state")),
    );
    if (entry === null || entry.operation !== "PUT" || entry.value.length === 0) return null;
    // The first byte marks a stored state, so an empty state is told apart from none.
    return entry.value.slice(1);
  }

  /** Stores (or with null clears) a session's state. */
  async setState(queue: string, sessionId: string, state: Uint8Array | null): Promise<void> {
    const kv = await this.#bucket();
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

  /** Forgets every session of `queue` (it was deleted or purged). */
  async forgetQueue(queue: string): Promise<void> {
    const kv = await this.#bucket();
    await this.#link.call(`forgetting the sessions of ${queue}`, async () => {
      const keys: string[] = [];
      for await (const key of await kv.keys(`${token(queue)}.>`)) keys.push(key);
      await Promise.all(keys.map((key) => kv.purge(key)));
    });
  }
}

/** True when a KV write lost to another (its expected revision was no longer the last). */
function lostRace(error: unknown): boolean {
  const cause = (error as { cause?: unknown }).cause ?? error;
  return (
    apiCode(cause) === 10071 || /wrong last sequence|key exists/i.test(String((cause as Error)?.message))
  );
}

function locked(queue: string, sessionId: string): QueueError {
  return new QueueError("SessionLocked", `session ${sessionId} of ${queue} is held by another receiver`);
}
