import { QueueError } from "../core/errors.js";
import type { QueueEngine } from "../engine/queue-engine.js";
import type { ServerMetrics } from "../server/metrics/server-metrics.js";
import { ServiceBusAdminServer } from "../server/servicebus/admin/admin-server.js";
import { applyEmulatorConfig, readEmulatorConfig } from "../server/servicebus/emulator-config.js";
import { applyEmulatorTopics } from "../server/servicebus/emulator-topics.js";
import type { SasKey } from "../server/servicebus/sas.js";
import { ServiceBusServer } from "../server/servicebus/servicebus-server.js";
import { UsageError } from "./arguments.js";

/** What `serve --servicebus` runs with, once its flags are checked. */
export interface ServiceBusServeOptions {
  readonly host: string;
  readonly amqpPort: number;
  readonly adminPort: number;
  readonly configPath: string | undefined;
  readonly createQueues: boolean;
  readonly sasKey: SasKey | null;
  /** The process's metrics, which both endpoints count their requests in. */
  readonly metrics: ServerMetrics;
}

/** The Service Bus endpoints running: the AMQP endpoint and its management API. */
export interface ServiceBusEndpoints {
  readonly amqp: ServiceBusServer;
  readonly admin: ServiceBusAdminServer;
  stop(): Promise<void>;
}

/**
 * Starts the AMQP endpoint and the management API over `engine`, after making the queues of a
 * Config.json when one is given, and says where they are and how to connect.
 */
export async function startServiceBus(
  engine: QueueEngine,
  options: ServiceBusServeOptions,
  log: (line: string) => void,
  onError: (error: unknown) => void,
): Promise<ServiceBusEndpoints> {
  let configured = "";
  if (options.configPath !== undefined) {
    const config = readEmulatorConfig(options.configPath);
    const applied = applyEmulatorConfig(engine, config.queues);
    const topics = applyEmulatorTopics(engine, config.topicDefinitions);
    configured = `${config.queues.length} queues from ${options.configPath} (${applied.created.length} created, ${applied.updated.length} updated), ${config.topics.length} topics (${topics.created.length} created, ${topics.subscribed.length} subscriptions created)`;
  }
  const amqp = await ServiceBusServer.start({
    engine,
    host: options.host,
    port: options.amqpPort,
    sasKey: options.sasKey,
    createQueues: options.configPath === undefined && options.createQueues,
    onError,
    requests: options.metrics.requests,
  }).catch((error: unknown) => {
    throw portError(error, "--amqp-port");
  });
  let admin: ServiceBusAdminServer;
  try {
    admin = await ServiceBusAdminServer.start({
      engine,
      host: options.host,
      port: options.adminPort,
      sasKey: options.sasKey,
      metrics: options.metrics,
    });
  } catch (error) {
    await amqp.close();
    throw portError(error, "--admin-port");
  }
  log(`queue-runtime Service Bus endpoint (AMQP 1.0) listening on ${options.host}:${amqp.port}`);
  log(`  connection string: ${amqp.connectionString()}`);
  log(
    `  management API:    ${admin.endpoint} (ServiceBusAdministrationClient, with the emulator's URL redirect)`,
  );
  log(
    `  entities:          ${configured || (options.createQueues ? "a queue is created when a client first attaches" : "queues must exist (--no-create-queues)")}`,
  );
  log(
    options.sasKey === null
      ? "  credentials:       not checked (--no-auth)"
      : `  credentials:       SAS key ${options.sasKey.keyName}`,
  );
  return {
    amqp,
    admin,
    stop: async () => {
      await Promise.all([amqp.close(), admin.close()]);
    },
  };
}

/** A port flag's number, checked. */
export function portNumber(flag: string, text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`${flag} must be a number from 0 to 65535, not ${text}`);
  return port;
}

/** A listen failure in words that name the flag to change. */
function portError(error: unknown, flag: string): QueueError {
  const message = error instanceof Error ? error.message : String(error);
  const hint = message.includes(flag) ? "" : `; choose another with ${flag} (0 picks a free one)`;
  return new QueueError("Configuration", `${message}${hint}`, { cause: error });
}
