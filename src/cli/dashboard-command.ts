import { QueueError } from "../core/errors.js";
import type { QueueClient } from "../core/queue-client.js";
import { newToken } from "../dashboard/access.js";
import { Dashboard } from "../dashboard/dashboard.js";
import { DashboardServer } from "../dashboard/dashboard-server.js";
import { isLoopbackHost } from "../http/loopback-hosts.js";
import { Deliveries, type ReceivingStore } from "../receiving/index.js";
import { parseCommandArgs, UsageError } from "./arguments.js";
import { type Command, EXIT } from "./command.js";
import { openOperatorClient, operatorUrl } from "./operator-client.js";
import type { CommandOutput } from "./output.js";
import { messageOf, oneLine } from "./output.js";
import { checkSqliteStore, isPostgresUrl, receivingStoreAt } from "./receiving-store.js";
import { withoutSecrets } from "./secrets.js";
import { portNumber } from "./servicebus-serve.js";

/** The port the dashboard listens on unless told otherwise. */
export const DEFAULT_DASHBOARD_PORT = 9330;

/** What `queue-runtime dashboard` accepts. */
export const DASHBOARD_USAGE = `Usage: queue-runtime dashboard --url <provider-url> [options]

Serves a web page of the provider's queues: their counts, live; a queue's messages (peek); its
dead letters with reason, description and source queue; Send, Purge and Redrive; and with
--receiving a receiver's failed deliveries and parked messages, with Retry and Dismiss.

  --url <provider-url>    the provider: sqlite:<path>, postgres://..., sqs://<host:port>?region=..,
                          servicebus:<connection string> (default: $QUEUE_URL)
  --port <number>         listen port (default ${DEFAULT_DASHBOARD_PORT}; 0 picks a free one)
  --host <address>        listen address (default 127.0.0.1: this machine only)
  --receiving <store>     a receiving store: a SQLite file path, or a postgres:// URL
  --table-prefix <p>      the prefix of its tables
  --help                  show this help

Anyone who reaches the page can read it; a change (send, purge, redrive, retry, dismiss) needs
the token printed at start and must come from the page's own origin. Ctrl-C stops it.

Exit codes: 0 stopped, 1 the dashboard could not start (a provider or store that cannot be
reached, a port in use), 2 bad usage.`;

/** What the arguments ask for, once checked. */
interface DashboardRequest {
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly receiving: { readonly location: string; readonly tablePrefix: string | undefined } | undefined;
}

/** What the command runs until, and where it finds `$QUEUE_URL`. */
export interface DashboardRun {
  readonly env?: NodeJS.ProcessEnv;
  /** Resolves when the dashboard should stop (default: the first SIGINT or SIGTERM). */
  readonly until?: Promise<unknown>;
}

/** `queue-runtime dashboard`: the web page of a provider's queues, until Ctrl-C. */
export const DASHBOARD: Command = {
  name: "dashboard",
  summary: "a web page of the queues, their messages and dead letters, with redrive, purge and send",
  run: (args, io) => dashboardCommand(args, io, { env: io.env }),
};

/** Runs `queue-runtime dashboard <args>` until told to stop; resolves the exit code and never rejects. */
export async function dashboardCommand(
  args: readonly string[],
  output: CommandOutput,
  run: DashboardRun = {},
): Promise<number> {
  let request: DashboardRequest | "help";
  try {
    request = parseRequest(args, run.env ?? process.env);
  } catch (error) {
    output.err(`queue-runtime dashboard: ${oneLine(messageOf(error))} (queue-runtime dashboard --help)`);
    return EXIT.usage;
  }
  if (request === "help") {
    output.out(DASHBOARD_USAGE);
    return EXIT.done;
  }
  const hide = hiderOf(request);
  const fail = (code: number, error: unknown) => {
    output.err(`queue-runtime dashboard: ${hide(oneLine(messageOf(error)))}`);
    return code;
  };
  let client: QueueClient;
  let store: ReceivingStore | undefined;
  try {
    store = request.receiving === undefined ? undefined : receivingStoreAt(request.receiving);
  } catch (error) {
    return fail(QueueError.is(error, "Configuration") ? EXIT.usage : EXIT.failed, error);
  }
  try {
    client = await openOperatorClient(request.url);
  } catch (error) {
    // A URL that cannot be used is bad usage; a store that cannot be opened or reached is a failure.
    return fail(error instanceof UsageError ? EXIT.usage : EXIT.failed, error);
  }
  let server: DashboardServer | undefined;
  try {
    await client.admin.listQueues();
    if (store !== undefined && request.receiving !== undefined) {
      checkSqliteStore(request.receiving);
      await store.open();
    }
    const token = newToken();
    const loopbackOnly = isLoopbackHost(request.host);
    const dashboard = new Dashboard({
      client,
      ...(store === undefined ? {} : { deliveries: new Deliveries(store) }),
      token,
      loopbackOnly,
      scrub: hide,
    });
    server = await listening(dashboard, request.host, request.port);
    output.out(`queue-runtime dashboard: ${server.endpoint}/?token=${token}`);
    output.out(`token: ${token}`);
    output.out(
      `  provider:    ${client.providerType}${store === undefined ? "" : `, receiving store: ${isPostgresUrl(request.receiving!.location) ? "postgres" : "sqlite"}`}`,
    );
    if (!loopbackOnly)
      output.out(
        `  reachable beyond this machine on ${request.host}: anyone who reaches it can read every message`,
      );
    output.out("  Ctrl-C stops it.");
    await (run.until ?? stopSignal(output));
    return EXIT.done;
  } catch (error) {
    return fail(EXIT.failed, error);
  } finally {
    await server?.close();
    await store?.close().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}

/** Checks the arguments; a mistake is a `Configuration` error. */
function parseRequest(args: readonly string[], env: NodeJS.ProcessEnv): DashboardRequest | "help" {
  const { values, positionals } = parseCommandArgs(args, {
    url: { type: "string" },
    port: { type: "string", default: String(DEFAULT_DASHBOARD_PORT) },
    host: { type: "string", default: "127.0.0.1" },
    receiving: { type: "string" },
    "table-prefix": { type: "string" },
    help: { type: "boolean", default: false },
  });
  if (values.help) return "help";
  if (positionals.length > 0)
    throw new QueueError(
      "Configuration",
      `dashboard takes no arguments, but was given ${JSON.stringify(positionals[0])}`,
    );
  if (values["table-prefix"] !== undefined && values.receiving === undefined)
    throw new QueueError("Configuration", "--table-prefix goes with --receiving");
  return {
    url: operatorUrl(values.url, env),
    host: values.host,
    port: portNumber("--port", values.port),
    receiving:
      values.receiving === undefined
        ? undefined
        : { location: values.receiving, tablePrefix: values["table-prefix"] },
  };
}

/** Removes the secrets of the provider URL and of the receiving store's URL from a line. */
function hiderOf(request: DashboardRequest): (line: string) => string {
  const receiving = request.receiving?.location;
  return (line) => {
    const shown = withoutSecrets(line, request.url);
    return receiving === undefined ? shown : withoutSecrets(shown, receiving);
  };
}

/** Starts the server, naming the flag to change when the port is taken. */
async function listening(dashboard: Dashboard, host: string, port: number): Promise<DashboardServer> {
  try {
    return await DashboardServer.start(dashboard, host, port);
  } catch (error) {
    dashboard.close();
    if ((error as { code?: unknown }).code === "EADDRINUSE")
      throw new QueueError(
        "Configuration",
        `port ${port} on ${host} is already in use; choose another with --port (0 picks a free one)`,
      );
    throw new QueueError("Configuration", `cannot listen on ${host} port ${port}: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

/** Resolves on the first SIGINT or SIGTERM, saying so; a second one ends the process at once. */
function stopSignal(output: CommandOutput): Promise<void> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      output.out(`${signal}: stopping the dashboard`);
      process.once(signal, () => process.exit(130));
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}
