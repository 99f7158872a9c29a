import { type CustomProviderConfig, createClient, QueueError, type QueueOptions } from "../../src/index.js";
import { BODY } from "../consumer/settings.js";
import type { Measurement } from "../lib.js";
import { providerSingleWork, providerWork } from "../provider-work.js";
import { NATS_SERVERS, RABBITMQ_URL, type Shape, uniqueName } from "./settings.js";
import { SHAPES, type Side, timedSide } from "./side.js";

/** The brokers of issue 28, item 5. */
export type Broker = "rabbitmq" | "nats";

/** The one queue each run of ours sends to, under a prefix of its own. */
const QUEUE = "bench";
/** No dead-letter queue: the bare clients have none either. */
const QUEUE_OPTIONS: QueueOptions = { deadLetterQueue: null };

/**
 * Our provider of `broker`, its queues or streams named under `prefix`. Typed as a custom provider
 * so this compiles before the providers' own config types are merged.
 */
export function oursProvider(broker: Broker, prefix: string): CustomProviderConfig {
  return broker === "rabbitmq"
    ? { type: "rabbitmq", url: RABBITMQ_URL, queuePrefix: prefix }
    : { type: "nats", servers: NATS_SERVERS, streamPrefix: prefix };
}

/** Why our provider of `broker` cannot be measured here (not registered, broker refused), or `undefined` when it can. */
export async function oursUnavailable(broker: Broker): Promise<string | undefined> {
  try {
    const client = await createClient({ provider: oursProvider(broker, uniqueName("brokers-probe")) });
    await client.close();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** A new client of ours on `broker` with one new queue; closing deletes every queue under its prefix. */
async function oursSide(broker: Broker, shape: Shape): Promise<Side> {
  const client = await createClient({ provider: oursProvider(broker, `${uniqueName("brokers-ours")}-`) });
  await client.admin.createQueue(QUEUE, QUEUE_OPTIONS);
  const bodies = Array.from({ length: SHAPES[shape].batch }, () => BODY);
  return {
    work: shape === "batches" ? providerWork(client, QUEUE, bodies) : providerSingleWork(client, QUEUE, BODY),
    async close() {
      try {
        for (const queue of await client.admin.listQueues())
          await client.admin.deleteQueue(queue).catch((error: unknown) => {
            // A dead-letter queue may go with its source queue.
            if (!QueueError.is(error, "QueueNotFound")) throw error;
          });
      } finally {
        await client.close();
      }
    },
  };
}

/** Our client's send + receive + complete of a run of `shape` on `broker`. */
export function ours(broker: Broker, shape: Shape): Promise<Measurement> {
  return timedSide(
    `queue-runtime ${broker} provider: sendMessage${shape === "batches" ? "s" : ""} / receive / completeMessage`,
    shape,
    () => oursSide(broker, shape),
  );
}
