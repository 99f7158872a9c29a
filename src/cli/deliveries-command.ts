import {
  DEFAULT_TABLE_PREFIX,
  Deliveries,
  type DeliveryItem,
  RETENTION_MS,
  type ReceivingStore,
} from "../receiving/index.js";
import { parseCommandArgs, UsageError } from "./arguments.js";
import { type Command, type CommandIO, EXIT, failed } from "./command.js";
import { type CommandOutput, messageOf, printable, tableLines } from "./output.js";
import { checkSqliteStore, receivingStoreAt } from "./receiving-store.js";
import { withoutSecrets } from "./secrets.js";

/** The environment variable naming the receiving store when `--receiving` is not given. */
export const RECEIVING_ENV = "QUEUE_RECEIVING";

/** What `queue-runtime deliveries` accepts. */
const DELIVERIES_USAGE = `Usage: queue-runtime deliveries <list | retry <id> | dismiss <id>> --receiving <store> [options]

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

/** `queue-runtime deliveries`: a receiver's failed deliveries and parked messages. */
export const DELIVERIES: Command = {
  name: "deliveries",
  summary: "list, retry and dismiss a receiver's failed deliveries and parked messages",
  run: (args: readonly string[], io: CommandIO) => deliveriesCommand(args, io, io.env),
};

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
    return failed("deliveries", error, output);
  }
  if (request === "help") {
    output.out(DELIVERIES_USAGE);
    return EXIT.done;
  }
  const hide = (line: string) => withoutSecrets(line, request.location);
  let store: ReceivingStore;
  try {
    store = receivingStoreAt(request);
  } catch (error) {
    return failed("deliveries", new UsageError(messageOf(error)), output, hide);
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
    return failed("deliveries", error, output, hide);
  } finally {
    await store.close().catch(() => undefined);
  }
}

/** Checks the arguments: what to do, to which item, in which store; a mistake is a {@link UsageError}. */
function parseRequest(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Request | "help" {
  const { values, positionals } = parseCommandArgs(args, {
    receiving: { type: "string" },
    "table-prefix": { type: "string" },
    json: { type: "boolean", default: false },
    body: { type: "boolean", default: false },
    help: { type: "boolean", default: false },
  });
  const [subcommand, id, ...extra] = positionals;
  if (values.help || subcommand === "help") return "help";
  if (subcommand === undefined) throw new UsageError("name what to do: list, retry <id> or dismiss <id>");
  if (!isSubcommand(subcommand))
    throw new UsageError(
      `unknown subcommand ${JSON.stringify(subcommand)}: use list, retry <id> or dismiss <id>`,
    );
  if (subcommand === "list" && id !== undefined)
    throw new UsageError(`list takes no id, but was given ${JSON.stringify(id)}`);
  if (subcommand !== "list" && (id === undefined || id.length === 0))
    throw new UsageError(`${subcommand} needs the id of an item (deliveries list shows the ids)`);
  if (extra.length > 0)
    throw new UsageError(`${subcommand} takes one id, but was also given ${JSON.stringify(extra[0])}`);
  if (values.body && !(subcommand === "list" && values.json))
    throw new UsageError("--body goes with list --json");
  const location = values.receiving ?? nonEmpty(env[RECEIVING_ENV]);
  if (location === undefined || location.length === 0)
    throw new UsageError(
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

/** Whether `value` names a subcommand. */
function isSubcommand(value: string): value is Subcommand {
  return (SUBCOMMANDS as readonly string[]).includes(value);
}

/** `value`, or `undefined` when it is empty. */
function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.length === 0 ? undefined : value;
}

/** Prints the items: JSON, a table on a terminal, tab-separated lines when piped. */
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
  const cells = rows.map((row, index) => (withProblems ? [...row, problemsText(items[index]!)] : row));
  for (const line of tableLines(header, cells)) output.out(line);
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

/** Says in one line what a retry or dismiss did. */
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
