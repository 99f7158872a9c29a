import type { PgPool, PgPoolClient } from "../../postgres/pg-pool.js";

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

/** How long a listener whose connection failed waits before it listens again (receives poll meanwhile). */
const RELISTEN_MS = 1_000;

/** The LISTEN connection of one database and schema, shared by the clients of this process. */
interface Listening {
  refs: number;
  client: PgPoolClient | undefined;
  timer: NodeJS.Timeout | undefined;
  stopped: boolean;
}
const listening = new Map<string, Listening>();

/**
 * Listens on `channel` (one connection of `pool`, shared by every client under `key` in this
 * process) and signals each notified queue, so a receive waiting here wakes when another
 * process sends. A lost connection listens again a second later. Resolves a function that
 * gives this client's share back; the last one closes the connection.
 */
export function listenForQueues(key: string, pool: PgPool, channel: string): () => void {
  let shared = listening.get(key);
  if (shared === undefined) {
    const created: Listening = { refs: 0, client: undefined, timer: undefined, stopped: false };
    listening.set(key, created);
    shared = created;
    void connectListener(created, key, pool, channel);
  }
  const own = shared;
  own.refs++;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    if (--own.refs > 0) return;
    own.stopped = true;
    listening.delete(key);
    if (own.timer !== undefined) clearTimeout(own.timer);
    own.client?.release(true);
    own.client = undefined;
  };
}

async function connectListener(shared: Listening, key: string, pool: PgPool, channel: string): Promise<void> {
  const retry = () => {
    if (shared.stopped) return;
    shared.timer = setTimeout(() => void connectListener(shared, key, pool, channel), RELISTEN_MS);
    shared.timer.unref();
  };
  let client: PgPoolClient;
  try {
    client = await pool.connect();
  } catch {
    retry();
    return;
  }
  if (shared.stopped) {
    client.release();
    return;
  }
  const lost = () => {
    client.off("error", lost);
    if (shared.client === client) shared.client = undefined;
    client.release(true);
    retry();
  };
  client.on("error", lost);
  (client as unknown as NotifyingClient).on("notification", (message) => {
    if (message.payload !== undefined) signalQueue(key, message.payload);
  });
  try {
    await client.query(`LISTEN "${channel}"`);
    // Released while the LISTEN was under way: nobody will release this connection later, and
    // the pool's end would wait for it for ever.
    if (shared.stopped) {
      client.off("error", lost);
      client.release(true);
      return;
    }
    shared.client = client;
    // Whatever was sent while nobody listened: every waiting receive looks again.
    for (const listener of [...(listeners.get(key) ?? [])]) listener("*");
  } catch {
    lost();
  }
}

/** The part of a node-postgres client that delivers notifications. */
interface NotifyingClient {
  on(event: "notification", listener: (message: { channel: string; payload?: string }) => void): unknown;
}
