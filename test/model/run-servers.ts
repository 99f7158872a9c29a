import type { VirtualClock } from "../../src/core/clock.js";
import type { QueueClient } from "../../src/core/queue-client.js";
import type { ModelRunContext } from "../../src/testing/model/index.js";

/** Connects a client of a run to the run's servers. */
export type Connect<T> = (servers: T) => Promise<QueueClient>;

/**
 * Servers one run's clients share (one set per run, so runs do not see each other's queues):
 * started by the run's first client, stopped when its last client closes.
 */
export function serversPerRun<T>(
  start: (clock: VirtualClock) => Promise<T>,
  stop: (servers: T) => Promise<void>,
): (context: ModelRunContext, connect: Connect<T>) => Promise<QueueClient> {
  const runs = new Map<string, { readonly started: Promise<T>; clients: number }>();
  return async ({ namespace, clock }, connect) => {
    let run = runs.get(namespace);
    if (run === undefined) {
      run = { started: start(clock), clients: 0 };
      runs.set(namespace, run);
    }
    const joined = run;
    joined.clients++;
    const servers = await joined.started;
    const client = await connect(servers);
    const close = client.close.bind(client);
    client.close = async () => {
      await close();
      if (--joined.clients === 0) {
        runs.delete(namespace);
        await stop(servers);
      }
    };
    return client;
  };
}
