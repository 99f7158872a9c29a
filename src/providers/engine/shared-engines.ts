import type { QueueEngine } from "../../engine/queue-engine.js";

interface SharedEngine {
  readonly engine: QueueEngine;
  users: number;
}

// Engines shared by the clients of one process that name the same queues (a memory world or a file),
// so that a send through one client wakes a receive waiting in another at once.
const engines = new Map<string, SharedEngine>();

/**
 * The engine registered under `key`, made by `create` when there is none yet, and the function
 * that gives it back: the engine is closed when its last user gives it back.
 */
export function acquireEngine(
  key: string,
  create: () => QueueEngine,
): { engine: QueueEngine; release: () => void | Promise<void> } {
  let entry = engines.get(key);
  if (entry === undefined) {
    entry = { engine: create(), users: 0 };
    engines.set(key, entry);
  }
  entry.users++;
  const owner = entry;
  let released = false;
  return {
    engine: owner.engine,
    release: () => {
      if (released) return;
      released = true;
      if (--owner.users > 0) return;
      if (engines.get(key) === owner) engines.delete(key);
      return owner.engine.close();
    },
  };
}
