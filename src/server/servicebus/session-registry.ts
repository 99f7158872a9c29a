import type { SessionLock } from "../../engine/sessions.js";

/** The session locks the endpoint's receivers hold, so `$management` can renew them and read and set their state. */
export class SessionRegistry {
  readonly #locks = new Map<string, SessionLock>();

  /** Remembers (or replaces) the lock of a session. */
  hold(lock: SessionLock): void {
    this.#locks.set(keyOf(lock.queue, lock.sessionId), lock);
  }

  /** Forgets a session's lock, if it is this one. */
  release(lock: SessionLock): void {
    const key = keyOf(lock.queue, lock.sessionId);
    if (this.#locks.get(key)?.token === lock.token) this.#locks.delete(key);
  }

  /** The lock held on a session of `queue`, if any. */
  find(queue: string, sessionId: string): SessionLock | undefined {
    return this.#locks.get(keyOf(queue, sessionId));
  }
}

function keyOf(queue: string, sessionId: string): string {
  return `${queue}\u0000${sessionId}`;
}
