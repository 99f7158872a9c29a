import { QueueError } from "../core/errors.js";
import type { QueueRecord } from "../rules/queue-records.js";
import { type EngineContext, queueToReceiveFrom } from "./context.js";
import { lockForDelivery } from "./delivery.js";
import { maintain, release, unlockGroup } from "./maintenance.js";
import type { GroupRecord, MessageRecord } from "./records.js";

/** A session lock as its holder knows it. */
export interface SessionLock {
  readonly queue: string;
  readonly sessionId: string;
  readonly token: string;
  readonly lockedUntil: number;
  /** How long the lock lasts from an accept or a renewal (the engine's session lock duration unless given). */
  readonly durationMs?: number | undefined;
}

/** A session queue; `undefined` when it does not exist yet but a send would make it. */
function sessionQueue(context: EngineContext, name: string): QueueRecord | undefined {
  const queue = queueToReceiveFrom(context, name);
  if (queue === undefined) return undefined;
  if (!queue.fifo)
    throw new QueueError(
      "Unsupported",
      `queue ${name} has no sessions: create it with { requiresSession: true } (or a name ending in .fifo)`,
    );
  return queue;
}

function lockSession(
  context: EngineContext,
  queue: QueueRecord,
  sessionId: string,
  now: number,
  durationMs: number | undefined,
  holder: string,
): SessionLock {
  const existing = context.store.getGroup(queue.name, sessionId);
  const group: GroupRecord = {
    sessionId,
    lockKind: "session",
    lockToken: `${holder}${context.newToken()}`,
    lockedUntil: now + (durationMs ?? context.defaults.sessionLockDurationMs),
    state: existing?.state ?? null,
  };
  context.store.putGroup(queue.name, group);
  return {
    queue: queue.name,
    sessionId,
    token: group.lockToken!,
    lockedUntil: group.lockedUntil,
    durationMs,
  };
}

/**
 * Locks a session: the one named (it may have no messages yet; `SessionLocked` while another
 * holds it), or the one whose oldest ready message is oldest among the free ones (`undefined`
 * when there is none). The lock's token starts with `holder`, so that whoever tells holders
 * apart can later free the locks of one that is gone ({@link releaseSessions}).
 */
export function acceptSession(
  context: EngineContext,
  queueName: string,
  sessionId: string | undefined,
  durationMs?: number,
  holder = "",
): SessionLock | undefined {
  return context.store.transaction(() => {
    const queue = sessionQueue(context, queueName);
    // Not there yet: no session to take now (a send will make the queue), and no named one to hold.
    if (queue === undefined) {
      if (sessionId === undefined) return undefined;
      throw new QueueError("QueueNotFound", `queue ${queueName} does not exist`);
    }
    const now = context.clock.now();
    maintain(context, queue, now);
    if (sessionId === undefined) {
      const [next] = context.store.availableGroups(queue.name, now, 1);
      return next === undefined ? undefined : lockSession(context, queue, next, now, durationMs, holder);
    }
    const group = context.store.getGroup(queue.name, sessionId);
    if (group !== undefined && group.lockedUntil > now)
      throw new QueueError(
        "SessionLocked",
        `session ${sessionId} of ${queue.name} is held by another receiver`,
        {
          retryAfterMs: group.lockedUntil - now,
        },
      );
    return lockSession(context, queue, sessionId, now, durationMs, holder);
  });
}

/** The group a session lock refers to, failing with `SessionLockLost` when the lock is gone. */
function heldGroup(context: EngineContext, lock: SessionLock, now: number) {
  const queue = context.store.getQueue(lock.queue);
  const group = queue === undefined ? undefined : context.store.getGroup(lock.queue, lock.sessionId);
  if (
    queue === undefined ||
    group === undefined ||
    group.lockToken !== lock.token ||
    group.lockedUntil <= now
  )
    throw new QueueError(
      "SessionLockLost",
      `the lock on session ${lock.sessionId} of ${lock.queue} has expired or was released`,
    );
  return { queue, group };
}

/** One attempt to receive up to `max` messages of a held session, in order. */
export function receiveFromSession(context: EngineContext, lock: SessionLock, max: number): MessageRecord[] {
  return context.store.transaction(() => {
    const now = context.clock.now();
    const { queue, group } = heldGroup(context, lock, now);
    maintain(context, queue, now);
    const received: MessageRecord[] = [];
    for (let round = 0; round < 4 && received.length < max; round++) {
      const batch = context.store.readyInGroup(queue.name, lock.sessionId, max - received.length);
      if (batch.length === 0) break;
      for (const message of batch)
        if (lockForDelivery(context, queue, message, group.lockedUntil, now)) received.push(message);
    }
    return received;
  });
}

/** Extends a session lock (and the locks of its messages) from now; returns the new expiry. */
export function renewSession(context: EngineContext, lock: SessionLock): number {
  return context.store.transaction(() => {
    const now = context.clock.now();
    const { queue, group } = heldGroup(context, lock, now);
    group.lockedUntil = now + (lock.durationMs ?? context.defaults.sessionLockDurationMs);
    context.store.putGroup(queue.name, group);
    for (const message of context.store.lockedInGroup(queue.name, lock.sessionId)) {
      if (message.lockToken === null || message.visibleAt <= now) continue;
      message.visibleAt = group.lockedUntil;
      context.store.updateMessage(queue.name, message);
    }
    return group.lockedUntil;
  });
}

/** Releases a session: its unsettled messages are ready again at once and another receiver may accept it. */
export function closeSession(context: EngineContext, lock: SessionLock): void {
  context.store.transaction(() => {
    const queue = context.store.getQueue(lock.queue);
    const group = queue === undefined ? undefined : context.store.getGroup(lock.queue, lock.sessionId);
    if (queue === undefined || group === undefined || group.lockToken !== lock.token) return;
    unlockSession(context, queue, group, context.clock.now());
  });
}

function unlockSession(context: EngineContext, queue: QueueRecord, group: GroupRecord, now: number): void {
  unlockGroup(context, queue, group);
  for (const message of context.store.lockedInGroup(queue.name, group.sessionId))
    if (message.lockToken !== null && message.visibleAt > now) release(context, queue, message, now, now);
}

/**
 * Releases, as {@link closeSession} does, every session of a queue whose lock `isGone` says was
 * taken by a holder that no longer exists (its process ended without closing them); returns how many.
 */
export function releaseSessions(
  context: EngineContext,
  queueName: string,
  isGone: (lockToken: string) => boolean,
): number {
  return context.store.transaction(() => {
    const queue = context.store.getQueue(queueName);
    if (queue === undefined || !queue.fifo) return 0;
    const now = context.clock.now();
    let released = 0;
    for (const sessionId of context.store.sessionLockedGroups(queue.name, now)) {
      const group = context.store.getGroup(queue.name, sessionId);
      if (group === undefined || group.lockToken === null || !isGone(group.lockToken)) continue;
      unlockSession(context, queue, group, now);
      released++;
    }
    return released;
  });
}

/** The state stored with a held session. */
export function getSessionState(context: EngineContext, lock: SessionLock): Uint8Array | null {
  return context.store.transaction(() => heldGroup(context, lock, context.clock.now()).group.state);
}

/** Stores (or clears) the state of a held session. */
export function setSessionState(context: EngineContext, lock: SessionLock, state: Uint8Array | null): void {
  context.store.transaction(() => {
    const { queue, group } = heldGroup(context, lock, context.clock.now());
    group.state = state;
    context.store.putGroup(queue.name, group);
  });
}
