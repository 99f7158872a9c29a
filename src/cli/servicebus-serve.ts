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
  /** Where they are and how to connect, to print once every port of the process is bound. */
  readonly banner: readonly string[];
  stop(): Promise<void>;
}

/**
 * Starts the AMQP endpoint and the management API over `engine`, after making the queues of a
 * Config.json when one is given; prints nothing, so that a port found busy after them leaves no
 * endpoint announced that is not there (its banner says where they are).
 */
export async function startServiceBus(
  engine: QueueEngine,
  options: ServiceBusServeOptions,
  onError: (error: unknown) => void,
): Promise<ServiceBusEndpoints> {
  const configured = options.configPath === undefined ? "" : configure(engine, options.configPath);
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
  return {
    amqp,
    admin,
    banner: banner(options, amqp, admin, configured),
    stop: async () => {
      await Promise.all([amqp.close(), admin.close()]);
    },
  };
}

/** Makes the queues and topics of the emulator's Config.json; resolves what it made, in words. */
function configure(engine: QueueEngine, configPath: string): string {
  const config = readEmulatorConfig(configPath);
  const applied = applyEmulatorConfig(engine, config.queues);
  const topics = applyEmulatorTopics(engine, config.topicDefinitions);
  return `${config.queues.length} queues from ${configPath} (${applied.created.length} created, ${applied.updated.length} updated), ${config.topics.length} topics (${topics.created.length} created, ${topics.subscribed.length} subscriptions created)`;
}

/** The lines that say where the endpoints listen and how to connect. */
function banner(
  options: ServiceBusServeOptions,
  amqp: ServiceBusServer,
  admin: ServiceBusAdminServer,
  configured: string,
): string[] {
  return [
    `queue-runtime Service Bus endpoint (AMQP 1.0) listening on ${options.host}:${amqp.port}`,
    `  connection string: ${amqp.connectionString()}`,
    `  management API:    ${admin.endpoint} (ServiceBusAdministrationClient, with the emulator's URL redirect)`,
    `  entities:          ${configured || (options.createQueues ? "a queue is created when a client first attaches" : "queues must exist (--no-create-queues)")}`,
    options.sasKey === null
      ? "  credentials:       not checked (--no-auth)"
      : `  credentials:       SAS key ${options.sasKey.keyName}`,
  ];
}

/** A port flag's number, checked. */
export function portNumber(flag: string, text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new UsageError(`${flag} must be a number from 0 to 65535, not ${text}`);
  return port;
}

/** A listen failure in words that name the flag to change. */
export function portError(error: unknown, flag: string): QueueError {
  const message = error instanceof Error ? error.message : String(error);
  const hint = message.includes(flag) ? "" : `; choose another with ${flag} (0 picks a free one)`;
  return new QueueError("Configuration", `${message}${hint}`, { cause: error });
}
