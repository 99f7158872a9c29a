import {
  ServiceBusClient,
  type ServiceBusMessage,
  type ServiceBusReceiver,
  type ServiceBusSender,
} from "@azure/service-bus";
import type { DrainWork } from "./lib.js";

/** How the `@azure/service-bus` SDK's side of {@link drain} is set up. */
export interface ServiceBusSdkOptions {
  /** Concurrent workers of the drain: a sender and a peek-lock receiver each. */
  readonly workers: number;
  /** The messages each worker's send carries, and the most each receive asks for. */
  readonly batch: ServiceBusMessage[];
  /** `maxWaitTimeInMs` of every `receiveMessages`. */
  readonly waitMs: number;
  /** One `ServiceBusClient` (one AMQP connection) for all workers, or one per worker. */
  readonly shared: boolean;
}

/** The SDK's clients of one queue, and the drain work they do. */
export interface ServiceBusSdkClients {
  readonly work: DrainWork;
  close(): Promise<void>;
}

/**
 * The SDK's side of {@link drain}, used as the SDK means to be: `createSender(queue).sendMessages(batch)`,
 * `createReceiver(queue, { receiveMode: "peekLock" }).receiveMessages(n, { maxWaitTimeInMs })` and
 * `completeMessage` of each message received.
 */
export function serviceBusSdkClients(
  connectionString: string,
  queue: string,
  options: ServiceBusSdkOptions,
): ServiceBusSdkClients {
  const { workers, batch, waitMs, shared } = options;
  const clients = Array.from(
    { length: shared ? 1 : workers },
    // No retries: a failure should end the benchmark, not hide in its numbers.
    () => new ServiceBusClient(connectionString, { retryOptions: { maxRetries: 0, timeoutInMs: 30_000 } }),
  );
  const senders: ServiceBusSender[] = [];
  const receivers: ServiceBusReceiver[] = [];
  for (let worker = 0; worker < workers; worker++) {
    const client = clients[worker % clients.length]!;
    senders.push(client.createSender(queue));
    receivers.push(client.createReceiver(queue, { receiveMode: "peekLock" }));
  }
  return {
    work: {
      send: (worker) => senders[worker]!.sendMessages(batch),
      async receiveAndSettle(worker) {
        const receiver = receivers[worker]!;
        const received = await receiver.receiveMessages(batch.length, { maxWaitTimeInMs: waitMs });
        await Promise.all(received.map((message) => receiver.completeMessage(message)));
        return received.length;
      },
    },
    close: async () => {
      for (const client of clients) await client.close();
    },
  };
}
