import { ServiceBusClient } from "@azure/service-bus";
import type { Measurement } from "../lib.js";
import { consumeRemote, filledQueue, type Remote, WARM } from "./remote.js";
import { CONCURRENCY } from "./settings.js";
import { countTo, timedUntilDone } from "./timed.js";

/** Where a `queue-runtime serve --servicebus` listens: its connection string and its management API. */
export interface ServiceBusEndpoint {
  readonly connectionString: string;
  readonly administrationEndpoint: string;
}

/** The server at `server`, as our servicebus provider reaches it. */
function serviceBusRemote(server: ServiceBusEndpoint): Remote {
  return { provider: { type: "servicebus", ...server }, queueOptions: {}, fillBatch: 50 };
}

/** Our `client.consume` over the servicebus provider, concurrency {@link CONCURRENCY}, draining `count` messages. */
export function oursOverServiceBus(server: ServiceBusEndpoint, count: number): Promise<Measurement> {
  const name = `queue-runtime client.consume, servicebus provider, concurrency ${CONCURRENCY}`;
  return consumeRemote(serviceBusRemote(server), name, count, CONCURRENCY);
}

/**
 * `@azure/service-bus` 7.9.5's `receiver.subscribe()` in peek-lock (`maxConcurrentCalls`
 * {@link CONCURRENCY}, `autoCompleteMessages`, a no-op `processMessage`) draining `count` messages;
 * timed from `subscribe()` until the handler has run on each (the SDK completes it right after,
 * with nothing to watch it by: at most the last 16 completes fall outside the timing).
 */
export async function serviceBusSubscribe(server: ServiceBusEndpoint, count: number): Promise<Measurement> {
  const filled = await filledQueue(serviceBusRemote(server), "sdk", count);
  await filled.client.close();
  const sdk = new ServiceBusClient(server.connectionString);
  const receiver = sdk.createReceiver(filled.queue, { receiveMode: "peekLock" });
  let subscription: { close(): Promise<void> } | undefined;
  try {
    return await timedUntilDone(
      `@azure/service-bus 7.9.5 subscribe(), maxConcurrentCalls ${CONCURRENCY}`,
      count,
      (done, fail) => {
        const handled = countTo(count, done);
        subscription = receiver.subscribe(
          { processMessage: async () => handled(), processError: async (args) => fail(args.error) },
          { maxConcurrentCalls: CONCURRENCY, autoCompleteMessages: true },
        );
      },
      WARM,
    );
  } finally {
    await subscription?.close();
    await receiver.close();
    await sdk.close();
  }
}
