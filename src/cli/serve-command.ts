import { parseArgs } from "node:util";
import { QueueError } from "../core/errors.js";
import { JournalStore } from "../engine/journal/journal-store.js";
import { MemoryStore } from "../engine/memory/memory-store.js";
import { QueueEngine } from "../engine/queue-engine.js";
import { SqliteStore } from "../engine/sqlite/sqlite-store.js";
import type { QueueStore } from "../engine/store.js";
import { SQLITE_POLL_INTERVAL_MS } from "../providers/sqlite/sqlite-provider.js";
import { type AnsweredRequest, SqsServer } from "../server/sqs/sqs-server.js";

/** The credentials the server checks when none are given (LocalStack's convention, so existing setups work). */
export const DEFAULT_CREDENTIALS = { accessKeyId: "test", secretAccessKey: "test" } as const;

/** What `queue-runtime serve` accepts. */
export const SERVE_USAGE = `Usage: queue-runtime serve [options]

Runs an SQS-compatible endpoint (AWS JSON 1.0 and the query protocol, SigV4) on the queue engine.

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
  --region <region>       region in queue ARNs (default us-east-1)
  --account-id <id>       account id in queue URLs and ARNs (default 000000000000)
  --log-requests          print a line for every request answered: operation, status, time, and
                          why it was refused (a signature that does not match, say)
  --help                  show this help`;

/** A running server and how to stop it. */
export interface ServeHandle {
  readonly server: SqsServer;
  readonly engine: QueueEngine;
  stop(): Promise<void>;
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
    throw new QueueError("Configuration", `${(error as Error).message}\n\n${SERVE_USAGE}`);
  }
  const { values } = parsed;
  if (values.help) {
    log(SERVE_USAGE);
    return undefined;
  }
  const storages = [values.db !== undefined, values.journal !== undefined, values.memory].filter(Boolean);
  if (storages.length > 1)
    throw new QueueError("Configuration", "give one of --db, --journal and --memory, not several");
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new QueueError("Configuration", `--port must be a number from 0 to 65535, not ${values.port}`);
  const keyGiven = values["access-key"] !== undefined;
  const secretGiven = values["secret-key"] !== undefined;
  if (values["no-auth"] && (keyGiven || secretGiven))
    throw new QueueError("Configuration", "give --no-auth or --access-key and --secret-key, not both");
  if (keyGiven !== secretGiven)
    throw new QueueError(
      "Configuration",
      "give --access-key and --secret-key together (or neither, for test/test)",
    );
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
  let server: SqsServer;
  try {
    server = await SqsServer.start({
      engine,
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
  log(`queue-runtime SQS endpoint listening on ${server.endpoint}`);
  log(`  region:      ${values.region}`);
  log(`  storage:     ${storage.description}`);
  log(
    credentials === null
      ? "  credentials: not checked (--no-auth)"
      : `  credentials: access key ${credentials.accessKeyId}, secret ${values["secret-key"] === undefined ? credentials.secretAccessKey : "(as given)"}`,
  );
  log(`  try:         aws sqs list-queues --endpoint-url ${server.endpoint} --region ${values.region}`);
  let stopping: Promise<void> | undefined;
  return {
    server,
    engine,
    stop: () => {
      stopping ??= server.close().then(() => engine.close());
      return stopping;
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
  readonly description: string;
  readonly pollIntervalMs: number | undefined;
}

function storageOf(values: ReturnType<typeof parseServeArgs>["values"]): Storage {
  const journal = values.journal;
  if (journal !== undefined)
    return {
      open: () => new JournalStore(journal),
      description: `journal file ${journal} (queues held in memory)`,
      pollIntervalMs: undefined,
    };
  if (values.memory)
    return { open: () => new MemoryStore(), description: "memory (not kept)", pollIntervalMs: undefined };
  const path = values.db ?? "./queue-runtime.db";
  return {
    open: () => new SqliteStore(path),
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
      help: { type: "boolean", default: false },
    },
  });
}
