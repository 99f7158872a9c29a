import { parseArgs } from "node:util";
import { QueueError } from "../core/errors.js";
import {
  DEFAULT_TABLE_PREFIX,
  Deliveries,
  type DeliveryItem,
  RETENTION_MS,
  type ReceivingStore,
} from "../receiving/index.js";
import { checkSqliteStore, receivingStoreAt } from "./receiving-store.js";
import { withoutSecrets } from "./secrets.js";
import { messageOf, oneLine, printable } from "./terminal-text.js";

/** The environment variable naming the receiving store when `--receiving` is not given. */
export const RECEIVING_ENV = "QUEUE_RECEIVING";

/** What `queue-runtime deliveries` accepts. */
export const DELIVERIES_USAGE = `Usage: queue-runtime deliveries <list | retry <id> | dismiss <id>> --receiving <store> [options]

Lists, retries and dismisses a receiver's failed deliveries and parked messages.

  list                    one line per item: its id, status, label (queue or subscriber, and
                          event) and reason; never a message's body
  retry <id>              make it pending again: the next tick delivers it again (d-<n>) or
                          reads it again (p-<n>)
  dismiss <id>            set it aside; it is deleted ${RETENTION_MS / 86_400_000} days from now

  --receiving <store>     the receiving store: a SQLite file path, or a postgres:// or
                          postgresql:// URL (default: $${RECEIVING_ENV})
  --table-prefix <p>      the prefix of its tables (default ${DEFAULT_TABLE_PREFIX})
  --json                  print one JSON document instead of lines
  --body                  with list --json: each parked message's body, base64, as bodyBase64
  --help                  show this help

Exit codes: 0 done, 1 the operation failed (an id not listed, a store that cannot be opened),
2 bad usage.`;

/** Where a command writes: whole lines to stdout and stderr, and whether stdout is a terminal. */
export interface CommandOutput {
  out(line: string): void;
  err(line: string): void;
  readonly isTTY: boolean;
}

/** Exit codes of `queue-runtime deliveries`. */
export const EXIT = { done: 0, failed: 1, usage: 2 } as const;

const SUBCOMMANDS = ["list", "retry", "dismiss"] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

/** What the arguments ask for, once checked. */
interface Request {
  readonly subcommand: Subcommand;
  readonly id: string | undefined;
  readonly location: string;
  readonly tablePrefix: string | undefined;
  readonly json: boolean;
  readonly body: boolean;
}

/** Runs `queue-runtime deliveries <args>`, writing to `output`; resolves the exit code and never rejects. */
export async function deliveriesCommand(
  args: readonly string[],
  output: CommandOutput,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  let request: Request | "help";
  try {
    request = parseRequest(args, env);
  } catch (error) {
    output.err(`queue-runtime deliveries: ${oneLine(messageOf(error))} (queue-runtime deliveries --help)`);
    return EXIT.usage;
  }
  if (request === "help") {
    output.out(DELIVERIES_USAGE);
    return EXIT.done;
  }
  let store: ReceivingStore;
  try {
    store = receivingStoreAt(request);
  } catch (error) {
    output.err(`queue-runtime deliveries: ${withoutSecrets(oneLine(messageOf(error)), request.location)}`);
    return EXIT.usage;
  }
  try {
    checkSqliteStore(request);
    await store.open();
    const deliveries = new Deliveries(store);
    if (request.subcommand === "list") listItems(await deliveries.list(), request, output);
    else {
      const id = request.id!;
      if (request.subcommand === "retry") await deliveries.retry(id);
      else await deliveries.dismiss(id);
      confirm(request.subcommand, id, request.json, output);
    }
    return EXIT.done;
  } catch (error) {
    output.err(`queue-runtime deliveries: ${withoutSecrets(oneLine(messageOf(error)), request.location)}`);
    return EXIT.failed;
  } finally {
    await store.close().catch(() => undefined);
  }
}

function parseRequest(args: readonly string[], env: Readonly<Record<string, string | undefined>>) {
  const { values, positionals } = parseArgs({
    args: [...args],
    strict: true,
    allowPositionals: true,
    options: {
      receiving: { type: "string" },
      "table-prefix": { type: "string" },
      json: { type: "boolean", default: false },
      body: { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
  });
  const [subcommand, id, ...extra] = positionals;
  if (values.help || subcommand === "help") return "help";
  if (subcommand === undefined) throw usage("name what to do: list, retry <id> or dismiss <id>");
  if (!isSubcommand(subcommand))
    throw usage(`unknown subcommand ${JSON.stringify(subcommand)}: use list, retry <id> or dismiss <id>`);
  if (subcommand === "list" && id !== undefined)
    throw usage(`list takes no id, but was given ${JSON.stringify(id)}`);
  if (subcommand !== "list" && (id === undefined || id.length === 0))
    throw usage(`${subcommand} needs the id of an item (deliveries list shows the ids)`);
  if (extra.length > 0)
    throw usage(`${subcommand} takes one id, but was also given ${JSON.stringify(extra[0])}`);
  if (values.body && !(subcommand === "list" && values.json)) throw usage("--body goes with list --json");
  const location = values.receiving ?? nonEmpty(env[RECEIVING_ENV]);
  if (location === undefined || location.length === 0)
    throw usage(
      `give the receiving store with --receiving <sqlite path | postgres url> (or ${RECEIVING_ENV})`,
    );
  return {
    subcommand,
    id,
    location,
    tablePrefix: values["table-prefix"],
    json: values.json,
    body: values.body,
  } satisfies Request;
}

function isSubcommand(value: string): value is Subcommand {
  return (SUBCOMMANDS as readonly string[]).includes(value);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.length === 0 ? undefined : value;
}

function usage(message: string): QueueError {
  return new QueueError("Configuration", message);
}

function listItems(items: readonly DeliveryItem[], request: Request, output: CommandOutput): void {
  if (request.json) {
    output.out(
      JSON.stringify(
        items.map((item) => jsonOf(item, request.body)),
        null,
        2,
      ),
    );
    return;
  }
  const rows = items.map((item) => [item.id, item.status, item.label, item.reason].map(printable));
  if (!output.isTTY) {
    for (const row of rows) output.out(row.join("\t"));
    return;
  }
  if (items.length === 0) {
    output.out("no failed deliveries or parked messages");
    return;
  }
  const withProblems = items.some((item) => (item.problems?.length ?? 0) > 0);
  const header = ["ID", "STATUS", "LABEL", "REASON", ...(withProblems ? ["PROBLEMS"] : [])];
  const table = [
    header,
    ...rows.map((row, index) => (withProblems ? [...row, problemsText(items[index]!)] : row)),
  ];
  const widths = header.map((_, column) => Math.max(...table.map((row) => (row[column] ?? "").length)));
  for (const row of table)
    output.out(
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
        .join("  ")
        .trimEnd(),
    );
}

/** An item as `--json` prints it: never its body unless asked, and then as base64. */
function jsonOf(item: DeliveryItem, withBody: boolean): Record<string, unknown> {
  return {
    id: item.id,
    kind: item.kind,
    status: item.status,
    label: item.label,
    reason: item.reason,
    ...(item.problems === undefined
      ? {}
      : { problems: item.problems.map(({ field, rule }) => ({ field, rule })) }),
    ...(withBody && item.body !== undefined ? { bodyBase64: Buffer.from(item.body).toString("base64") } : {}),
  };
}

/** `orderId: invalid_format, (body): json`: where and which rule, never a value. */
function problemsText(item: DeliveryItem): string {
  return printable(
    (item.problems ?? []).map(({ field, rule }) => `${field === "" ? "(body)" : field}: ${rule}`).join(", "),
  );
}

function confirm(subcommand: "retry" | "dismiss", id: string, json: boolean, output: CommandOutput): void {
  const done = subcommand === "retry" ? "retried" : "dismissed";
  const what =
    subcommand === "dismiss"
      ? `deleted ${RETENTION_MS / 86_400_000} days from now`
      : id.startsWith("d-")
        ? "the next tick delivers it again"
        : "the next tick reads it again";
  output.out(json ? JSON.stringify({ id, status: done }) : `${done} ${id}: ${what}`);
}
