import type { MessageLock } from "./records.js";

/**
 * The `visibleAt` of a deferred message: delayed until a moment that never comes, so that no
 * receive takes it and no store needs a state of its own for it (a restart keeps it deferred).
 */
export const DEFERRED_UNTIL = Number.MAX_SAFE_INTEGER;

/** Lock tokens of deferred messages taken by sequence number start with this: releasing one defers it again. */
const DEFERRED_LOCK = "deferred:";

/** Whether a message is deferred: set aside until it is asked for by its sequence number. */
export function isDeferred(message: MessageLock): boolean {
  return message.state === "delayed" && message.visibleAt === DEFERRED_UNTIL;
}

/** Whether a lock was taken on a deferred message. */
export function isDeferredLock(lockToken: string | null): boolean {
  return lockToken?.startsWith(DEFERRED_LOCK) === true;
}

/** The token of a lock on a deferred message, made from a fresh one. */
export function deferredLockToken(token: string): string {
  return `${DEFERRED_LOCK}${token}`;
}
