import type { VirtualClock } from "../../src/core/clock.js";
import { StandardQueueClient } from "../../src/core/standard-queue-client.js";
import { MemoryStore } from "../../src/engine/memory/memory-store.js";
import { QueueEngine } from "../../src/engine/queue-engine.js";
import { createServiceBusProvider } from "../../src/providers/servicebus/servicebus-provider.js";
import { ServiceBusAdminServer } from "../../src/server/servicebus/admin/admin-server.js";
import { ServiceBusServer } from "../../src/server/servicebus/servicebus-server.js";
import type { MakeModelClient } from "../../src/testing/model/index.js";
import type { ModelOptions } from "../../src/testing/model/queue-model.js";
import { serversPerRun } from "./run-servers.js";

/**
 * Where Service Bus's semantics differ from the engine's, as the model's options: a session is
 * locked for its queue's lock duration; queues lock for a minute, do not deduplicate and drop
 * expired messages unless told otherwise; dead letters go to each queue's own sub-queue, which a
 * redrive receives from and sends on; queues have no default delay; an abandon with a delay keeps
 * the message locked until the delay ends; a plain receive of a session queue borrows one
 * session; a purge receives what is ready; a peek leaves out messages whose time to live ended;
 * a scheduled message's time to live runs from its scheduled time; a subscription does not
 * deduplicate (its topic does), and a redrive cannot move dead letters into one.
 */
export const SERVICE_BUS_SEMANTICS: ModelOptions = {
  sessionLockDurationMs: "queue",
  queueDefaults: { lockDurationMs: 60_000, deduplicationWindowMs: 0, deadLetterOnExpiration: false },
  deadLetterQueues: "subqueue",
  redrive: { receives: true, toSoleSource: false },
  defaultDelays: false,
  delayedAbandons: "held",
  fifoReceive: "session",
  purge: "ready",
  peekHeldExpired: false,
  timeToLiveFrom: "visible",
  subscriptionDeduplication: false,
  subscriptionRedrive: false,
};

/** A run's AMQP endpoint and management API over one engine. */
interface RunServers {
  readonly amqp: ServiceBusServer;
  readonly admin: ServiceBusAdminServer;
}

/** Starts both servers of a run on one engine on the run's virtual clock (no SAS: it is tested on its own, on real time). */
async function start(clock: VirtualClock): Promise<RunServers> {
  const engine = new QueueEngine(new MemoryStore(), { createQueues: false, clock });
  const amqp = await ServiceBusServer.start({ engine, port: 0, sasKey: null, createQueues: false });
  const admin = await ServiceBusAdminServer.start({ engine, host: "127.0.0.1", port: 0, sasKey: null });
  return { amqp, admin };
}

const serviceBusServers = serversPerRun(start, async ({ amqp, admin }) => {
  await amqp.close();
  await admin.close();
});

/** Clients of the servicebus provider over `queue-runtime serve --servicebus` (one server per run), on the run's virtual clock, retries off. */
export const serviceBusOverServe: MakeModelClient = (context) =>
  serviceBusServers(context, async ({ amqp, admin }) => {
    const provider = await createServiceBusProvider(
      {
        type: "servicebus",
        connectionString: amqp.connectionString(),
        administrationEndpoint: `http://127.0.0.1:${admin.port}`,
      },
      { createQueues: false, clock: context.clock },
    );
    return new StandardQueueClient(provider, { clock: context.clock, retryPolicy: { maxAttempts: 1 } });
  });
