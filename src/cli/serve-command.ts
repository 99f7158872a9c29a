import { parseArgs } from "node:util";
import { QueueError } from "../core/errors.js";
import type { QueueClient } from "../core/queue-client.js";
import { newToken } from "../dashboard/access.js";
import { Dashboard } from "../dashboard/dashboard.js";
import { JournalStore } from "../engine/journal/journal-store.js";
import { MemoryStore } from "../engine/memory/memory-store.js";
import { QueueEngine } from "../engine/queue-engine.js";
import { SqliteStore } from "../engine/sqlite/sqlite-store.js";
import type { QueueStore } from "../engine/store.js";
import { isLoopbackHost } from "../http/loopback-hosts.js";
import { engineClient } from "../providers/engine/engine-client.js";
import { SQLITE_POLL_INTERVAL_MS } from "../providers/sqlite/sqlite-provider.js";
import { ServerMetrics } from "../server/metrics/server-metrics.js";
import { type AnsweredRequest, SqsServer } from "../server/sqs/sqs-server.js";
import { argumentsError, UsageError } from "./arguments.js";
import { type Command, EXIT, failed } from "./command.js";
import type { CommandOutput } from "./output.js";
import {
  portNumber,
  type ServiceBusEndpoints,
  type ServiceBusServeOptions,
  startServiceBus,
} from "./servicebus-serve.js";

/** The credentials the server checks when none are given (LocalStack's convention, so existing setups work). */
export const DEFAULT_CREDENTIALS = { accessKeyId: "test", secretAccessKey: "test" } as const;

/** The official Service Bus emulator's key name and key, so its connection string works unchanged. */
export const EMULATOR_SAS_KEY = { keyName: "RootManageSharedAccessKey", key: "SAS_KEY_VALUE" } as const;

/** What `queue-runtime serve` accepts. */
const SERVE_USAGE = `Usage: queue-runtime serve [options]

Runs an SQS-compatible endpoint (AWS JSON 1.0 and the query protocol, SigV4) on the queue engine,
and with --servicebus an Azure Service Bus-compatible AMQP 1.0 endpoint beside it, on the same
store (a queue is the same queue under both protocols).

  --host <address>        listen address (default 127.0.0.1)
  --port <number>         listen port (default 9324; 0 picks a free one)
  --db <path>             SQLite file holding queues and messages (default ./queue-runtime.db)
  --journal <path>        keep queues and messages in memory and every change in an append-only
                          journal file instead of SQLite: as durable, lighter per request; one
                          server per file, and every message must fit in memory
  --memory                keep everything in memory instead (gone when the server stops)
  --access-key <id>       access key id requests must be signed with (default ${DEFAULT_CREDENTIALS.accessKeyId})
  --secret-key <secret>   its secret (default ${DEFAULT_CREDENTIALS.secretAccessKey})
  --no-auth               accept requests without checking signatures
  --region <region>       the region requests must be signed for, named in queue ARNs (default us-east-1)
  --account-id <id>       account id in queue URLs and ARNs (default 000000000000)
  --log-requests          print a line for every request answered: operation, status, time, and
                          why it was refused (a signature that does not match, say)

The dashboard (queue-runtime dashboard --help) answers GET / of the SQS endpoint, unsigned, over
this server's store; its changes need the token printed at start.

Azure Service Bus (the official emulator's defaults, so its connection string works unchanged):
  --servicebus            also run the AMQP 1.0 endpoint and its management (ATOM) API
  --amqp-port <number>    AMQP port (default 5672, the emulator's; 0 picks a free one)
  --admin-port <number>   management API port (default 5300; 0 picks a free one)
  --config <path>         the emulator's Config.json: exactly its queues exist (made or updated at
                          start); without it a queue is created when a client first attaches
  --no-create-queues      without --config: an unknown queue is not found instead of created
  --sas-key-name <name>   SAS key name tokens must be signed with (default ${EMULATOR_SAS_KEY.keyName})
  --sas-key <key>         its key (default ${EMULATOR_SAS_KEY.key}); --no-auth accepts any token
  --no-sqs                run the Service Bus endpoint alone

  --help                  show this help`;

/** The running servers and how to stop them. */
export interface ServeHandle {
  /** The SQS endpoint, unless `--no-sqs`. */
  readonly server: SqsServer | undefined;
  /** The Service Bus endpoints, with `--servicebus`. */
  readonly serviceBus: ServiceBusEndpoints | undefined;
  readonly engine: QueueEngine;
  stop(): Promise<void>;
}

/** `queue-runtime serve`: runs the servers until SIGINT or SIGTERM, then stops them cleanly. */
export const SERVE: Command = {
  name: "serve",
  summary: "run an SQS-compatible endpoint on the queue engine (and a Service Bus one with --servicebus)",
  run: serveUntilStopped,
};

/** Starts the servers, and once a signal comes stops them (a second signal exits at once); resolves the exit code. */
async function serveUntilStopped(args: readonly string[], io: CommandOutput): Promise<number> {
  let handle: ServeHandle | undefined;
  try {
    handle = await serve(args, io.out);
  } catch (error) {
    return failed("serve", error, io);
  }
  if (handle === undefined) return EXIT.done;
  const running = handle;
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      io.out(`\n${signal}: stopping (answering requests under way, closing the store)`);
      process.once(signal, () => process.exit(130));
      void running.stop().then(resolve);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  io.out("stopped");
  return EXIT.done;
}

/** Parses `serve` arguments, starts the server and says where it is; failures are `QueueError`s with a clear message. */
export async function serve(
  args: readonly string[],
  log: (line: string) => void,
): Promise<ServeHandle | undefined> {
  let parsed: ReturnType<typeof parseServeArgs>;
  try {
    parsed = parseServeArgs(args);
  } catch (error) {
    throw argumentsError(error);
  }
  const { values } = parsed;
  if (values.help) {
    log(SERVE_USAGE);
    return undefined;
  }
  const storages = [values.db !== undefined, values.journal !== undefined, values.memory].filter(Boolean);
  if (storages.length > 1) throw new UsageError("give one of --db, --journal and --memory, not several");
  const port = portNumber("--port", values.port);
  const serviceBus = serviceBusOptionsOf(values);
  if (values["no-sqs"] && serviceBus === undefined)
    throw new UsageError("--no-sqs leaves nothing to run without --servicebus");
  const keyGiven = values["access-key"] !== undefined;
  const secretGiven = values["secret-key"] !== undefined;
  if (values["no-auth"] && (keyGiven || secretGiven))
    throw new UsageError("give --no-auth or --access-key and --secret-key, not both");
  if (keyGiven !== secretGiven)
    throw new UsageError("give --access-key and --secret-key together (or neither, for test/test)");
  const credentials = values["no-auth"]
    ? null
    : {
        accessKeyId: values["access-key"] ?? DEFAULT_CREDENTIALS.accessKeyId,
        secretAccessKey: values["secret-key"] ?? DEFAULT_CREDENTIALS.secretAccessKey,
      };
  const storage = storageOf(values);
  const engine = new QueueEngine(storage.open(), {
    createQueues: false,
    pollIntervalMs: storage.pollIntervalMs,
  });
  const dashboard = values["no-sqs"] ? undefined : dashboardOf(engine, storage, values.host);
  // One set for every server of the process, so that each port's /metrics tells all of it.
  const metrics = new ServerMetrics(engine);
  const sqs =
    dashboard === undefined
      ? undefined
      : await startSqs(engine, values, port, credentials, dashboard.dashboard, metrics, log);
  const server = sqs?.server;
  let endpoints: ServiceBusEndpoints | undefined;
  if (serviceBus !== undefined)
    try {
      endpoints = await startServiceBus(engine, { ...serviceBus, metrics }, (error) =>
        log(`servicebus: ${error instanceof Error ? error.message : String(error)}`),
      );
    } catch (error) {
      dashboard?.dashboard.close();
      await server?.close();
      await engine.close();
      throw error;
    }
  // Announced only now that every port is bound: a busy one fails before any endpoint is said to listen.
  for (const line of [...(sqs?.banner ?? []), ...(endpoints?.banner ?? [])]) log(line);
  log(`  storage:     ${storage.description}`);
  if (server !== undefined && dashboard !== undefined) {
    log(`queue-runtime dashboard: ${server.endpoint}/?token=${dashboard.token}`);
    log(`token: ${dashboard.token}`);
  }
  let stopping: Promise<void> | undefined;
  return {
    server,
    serviceBus: endpoints,
    engine,
    stop: () => {
      dashboard?.dashboard.close();
      stopping ??= Promise.all([server?.close(), endpoints?.stop(), dashboard?.client.close()]).then(() =>
        engine.close(),
      );
      return stopping;
    },
  };
}

/** The dashboard over the server's own store, with a fresh token; listening on loopback, it answers requests addressed there only. */
function dashboardOf(
  engine: QueueEngine,
  storage: Storage,
  host: string,
): { dashboard: Dashboard; token: string; client: QueueClient } {
  const token = newToken();
  const client = engineClient(engine, storage.providerType);
  return { dashboard: new Dashboard({ client, token, loopbackOnly: isLoopbackHost(host) }), token, client };
}

/** Starts the SQS endpoint and the dashboard's pages beside it, and gives the lines that say where it is; the engine is closed if it cannot listen. */
async function startSqs(
  engine: QueueEngine,
  values: ServeValues,
  port: number,
  credentials: { accessKeyId: string; secretAccessKey: string } | null,
  dashboard: Dashboard,
  metrics: ServerMetrics,
  log: (line: string) => void,
): Promise<{ server: SqsServer; banner: string[] }> {
  let server: SqsServer;
  try {
    server = await SqsServer.start({
      engine,
      pages: dashboard,
      metrics,
      host: values.host,
      port,
      region: values.region,
      accountId: values["account-id"],
      credentials,
      ...(values["log-requests"]
        ? { onAnswer: (answered: AnsweredRequest) => log(requestLine(answered)) }
        : {}),
    });
  } catch (error) {
    dashboard.close();
    await engine.close();
    if ((error as { code?: unknown }).code === "EADDRINUSE")
      throw new QueueError(
        "Configuration",
        `port ${port} on ${values.host} is already in use; choose another with --port (0 picks a free one)`,
      );
    throw new QueueError(
      "Configuration",
      `cannot listen on ${values.host} port ${port}: ${(error as Error).message}`,
      {
        cause: error,
      },
    );
  }
  const banner = [
    `queue-runtime SQS endpoint listening on ${server.endpoint}`,
    `  region:      ${values.region}`,
    credentials === null
      ? "  credentials: not checked (--no-auth)"
      : `  credentials: access key ${credentials.accessKeyId}, secret ${values["secret-key"] === undefined ? credentials.secretAccessKey : "(as given)"}`,
    `  try:         ${awsCliCommand(server.endpoint, values.region, credentials, values["secret-key"] !== undefined)}`,
  ];
  return { server, banner };
}

/**
 * An AWS CLI command that lists the server's queues, with the credentials it signs with: the
 * access key, and the secret unless it was given on the command line (a placeholder then, so the
 * secret is never printed). Without auth any key pair does, but the CLI still needs one.
 */
function awsCliCommand(
  endpoint: string,
  region: string,
  credentials: { accessKeyId: string; secretAccessKey: string } | null,
  secretGiven: boolean,
): string {
  const { accessKeyId, secretAccessKey } = credentials ?? DEFAULT_CREDENTIALS;
  const secret = secretGiven ? "<your --secret-key>" : secretAccessKey;
  return `AWS_ACCESS_KEY_ID=${shellWord(accessKeyId)} AWS_SECRET_ACCESS_KEY=${shellWord(secret)} aws sqs list-queues --endpoint-url ${endpoint} --region ${shellWord(region)}`;
}

/** `word` as one shell word: as it is when it is plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[\w./:@%+=,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The Service Bus endpoints' options when `--servicebus` is given; its flags without it are a mistake. */
function serviceBusOptionsOf(values: ServeValues): Omit<ServiceBusServeOptions, "metrics"> | undefined {
  const given = ["amqp-port", "admin-port", "config", "sas-key-name", "sas-key"].filter(
    (flag) => values[flag as keyof ServeValues] !== undefined,
  );
  if (values["no-create-queues"]) given.push("no-create-queues");
  if (!values.servicebus) {
    if (given.length > 0) throw new UsageError(`--${given[0]} is a Service Bus option: add --servicebus`);
    return undefined;
  }
  if (values["no-auth"] && (values["sas-key"] !== undefined || values["sas-key-name"] !== undefined))
    throw new UsageError("give --no-auth or a SAS key, not both");
  if (values.config !== undefined && values["no-create-queues"])
    throw new UsageError("--config already decides which queues exist: drop --no-create-queues");
  return {
    host: values.host,
    amqpPort: portNumber("--amqp-port", values["amqp-port"] ?? "5672"),
    adminPort: portNumber("--admin-port", values["admin-port"] ?? "5300"),
    configPath: values.config,
    createQueues: !values["no-create-queues"],
    sasKey: values["no-auth"]
      ? null
      : {
          keyName: values["sas-key-name"] ?? EMULATOR_SAS_KEY.keyName,
          key: values["sas-key"] ?? EMULATOR_SAS_KEY.key,
        },
  };
}

/** One line of the request log: `2026-12-01T14:00:00.000Z SendMessage 200 1.2 ms (json)`, and why a refused one was. */
function requestLine(answered: AnsweredRequest): string {
  const refused = answered.error === undefined ? "" : ` ${answered.error.code}: ${answered.error.message}`;
  return `${new Date().toISOString()} ${answered.operation ?? "-"} ${answered.status} ${answered.ms.toFixed(1)} ms (${answered.protocol})${refused}`;
}

/** Where the server keeps queues: how to open it, how to name it, and how often a waiting receive looks for other processes' sends (none for a store only this process writes). */
interface Storage {
  open(): QueueStore;
  /** The provider type the dashboard shows. */
  readonly providerType: "journal" | "memory" | "sqlite";
  readonly description: string;
  readonly pollIntervalMs: number | undefined;
}

type ServeValues = ReturnType<typeof parseServeArgs>["values"];

function storageOf(values: ServeValues): Storage {
  const journal = values.journal;
  if (journal !== undefined)
    return {
      open: () => new JournalStore(journal),
      providerType: "journal",
      description: `journal file ${journal} (queues held in memory)`,
      pollIntervalMs: undefined,
    };
  if (values.memory)
    return {
      open: () => new MemoryStore(),
      providerType: "memory",
      description: "memory (not kept)",
      pollIntervalMs: undefined,
    };
  const path = values.db ?? "./queue-runtime.db";
  return {
    open: () => new SqliteStore(path),
    providerType: "sqlite",
    description: `SQLite file ${path}`,
    pollIntervalMs: SQLITE_POLL_INTERVAL_MS,
  };
}

function parseServeArgs(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: false,
    options: {
      host: { type: "string", default: "127.0.0.1" },
      port: { type: "string", default: "9324" },
      db: { type: "string" },
      journal: { type: "string" },
      memory: { type: "boolean", default: false },
      "access-key": { type: "string" },
      "secret-key": { type: "string" },
      "no-auth": { type: "boolean", default: false },
      region: { type: "string", default: "us-east-1" },
      "account-id": { type: "string", default: "000000000000" },
      "log-requests": { type: "boolean", default: false },
      servicebus: { type: "boolean", default: false },
      "amqp-port": { type: "string" },
      "admin-port": { type: "string" },
      config: { type: "string" },
      "no-create-queues": { type: "boolean", default: false },
      "sas-key-name": { type: "string" },
      "sas-key": { type: "string" },
      "no-sqs": { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
}
