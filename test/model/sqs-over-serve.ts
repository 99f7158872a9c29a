import { StandardQueueClient } from "../../src/core/standard-queue-client.js";
import { MemoryStore } from "../../src/engine/memory/memory-store.js";
import { QueueEngine } from "../../src/engine/queue-engine.js";
import { createSqsProvider } from "../../src/providers/sqs/sqs-provider.js";
import { SqsServer } from "../../src/server/sqs/sqs-server.js";
import type { MakeModelClient } from "../../src/testing/model/index.js";
import type { ModelOptions } from "../../src/testing/model/queue-model.js";
import { serversPerRun } from "./run-servers.js";

/**
 * Where SQS's semantics differ from the engine's, as the model's options: FIFO queues deduplicate
 * for a fixed 5 minutes and standard ones not at all; a FIFO message has no delay of its own;
 * delays count in whole seconds; a redrive receives what it moves (and what it cannot); receipts
 * are judged as SQS judges them.
 */
export const SQS_SEMANTICS: ModelOptions = {
  deduplicationWindowMs: 300_000,
  deduplicateStandardQueues: false,
  fifoMessageDelays: false,
  delayUnitMs: 1_000,
  redrive: { receives: true, toSoleSource: true },
  receipts: "sqs",
};

/** A server per run, on the run's virtual clock (unsigned requests: SigV4 is tested on its own, on real time). */
const sqsServers = serversPerRun(
  (clock) =>
    SqsServer.start({
      engine: new QueueEngine(new MemoryStore(), { createQueues: false, clock }),
      port: 0,
      credentials: null,
    }),
  (server) => server.close(),
);

/** Clients of the sqs provider over `queue-runtime serve` (one server per run), both on the run's virtual clock, retries off. */
export const sqsOverServe: MakeModelClient = (context) =>
  sqsServers(context, async ({ endpoint }) => {
    const provider = await createSqsProvider(
      {
        type: "sqs",
        endpoint,
        region: "us-east-1",
        credentials: { accessKeyId: "model", secretAccessKey: "model" },
      },
      { createQueues: false, clock: context.clock },
    );
    return new StandardQueueClient(provider, { clock: context.clock, retryPolicy: { maxAttempts: 1 } });
  });
