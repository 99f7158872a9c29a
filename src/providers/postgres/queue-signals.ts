import type { PgPool } from "../../postgres/pg-pool.js";

/**
 * Signals that a queue may have messages now (a send, an abandon), between the clients of one
 * process that share a database and schema: each wakes its own waiting receives, on its own
 * clock. Other processes learn it from LISTEN/NOTIFY or their fallback poll.
 */
const listeners = new Map<string, Set<(queue: string) => void>>();
const poolIds = new WeakMap<PgPool, number>();
let nextPoolId = 0;

/** The key of a database and schema: the connection string, or the identity of an application's pool. */
export function signalKey(connection: string | PgPool, schema: string): string {
  if (typeof connection === "string") return `${connection}|${schema}`;
  let id = poolIds.get(connection);
  if (id === undefined) {
    id = ++nextPoolId;
    poolIds.set(connection, id);
  }
  return `pool:${id}|${schema}`;
}

/** Calls `listener` with each queue signalled under `key`, until the returned function is called. */
export function onQueueSignal(key: string, listener: (queue: string) => void): () => void {
  let set = listeners.get(key);
  if (set === undefined) {
    set = new Set();
    listeners.set(key, set);
  }
  const own = set;
  own.add(listener);
  return () => {
    own.delete(listener);
    if (own.size === 0 && listeners.get(key) === own) listeners.delete(key);
  };
}

/** Tells every client under `key` that `queue` may have messages. */
export function signalQueue(key: string, queue: string): void {
  const set = listeners.get(key);
  if (set !== undefined) for (const listener of [...set]) listener(queue);
}
