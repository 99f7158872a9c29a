import type { QueueAdmin, QueueInfo, QueueOptions, QueueStats } from "../core/admin.js";
import { unlessNotFound } from "../core/errors.js";
import { subscriptionPath } from "../core/topics.js";
import { countOption, UsageError } from "./arguments.js";
import { EXIT } from "./command.js";
import { confirmed } from "./confirm.js";
import { deadLetterQueueNamed } from "./dead-letter-queue.js";
import { OPERATOR_HELP, type OperatorCall, type OptionValues, operatorCommand } from "./operator-command.js";
import { counted, show, tableLines } from "./output.js";

const USAGE = `Usage: queue-runtime queues [list | create <name> | delete <name> | purge <name>] [options]

Lists queues with their message counts, and creates, deletes and empties them.

  list                    (the default) every queue, dead-letter queues included, with its
                          active, in-flight, delayed and dead-lettered messages; where the
                          provider has topics, each topic's subscriptions too (by their paths,
                          <topic>/subscriptions/<name>), and each topic with its subscriptions
                          and the messages published to it
  create <name>           create a queue, and its dead-letter queue unless the provider has none
  delete <name>           delete a queue and its messages (asks first); its dead-letter queue
                          stays, and the output says so, unless the provider deletes it too
  purge <name>            remove every message of a queue, locked ones included (asks first)

  --fifo                  create: deliver in order per session (message group)
  --lock-duration <ms>    create: how long a receive locks a message (provider default: 30000)
  --max-deliveries <n>    create: deliveries before a message is dead-lettered (default: 10)
  --dead-letter-queue <q> create: where its dead letters go (default: the provider's name, <name>-dlq)
  --time-to-live <ms>     create: how long a message may wait to be received (default: no limit)
  --yes                   delete, purge: go ahead without asking (without a terminal to ask on,
                          nothing is deleted or purged unless it is given)
${OPERATOR_HELP}`;

const OPTIONS = {
  fifo: { type: "boolean" },
  "lock-duration": { type: "string" },
  "max-deliveries": { type: "string" },
  "dead-letter-queue": { type: "string" },
  "time-to-live": { type: "string" },
  yes: { type: "boolean", default: false },
} as const;

/** Options of `create` only. */
const CREATE_OPTIONS = [
  "fifo",
  "lock-duration",
  "max-deliveries",
  "dead-letter-queue",
  "time-to-live",
] as const;

/** The most milliseconds a duration option takes: a year, longer than any provider keeps a message. */
const MAX_OPTION_MS = 31_536_000_000;

/** What `queue-runtime queues` was asked to do. */
type QueuesRequest =
  | { readonly action: "list" }
  | { readonly action: "create"; readonly name: string; readonly options: QueueOptions }
  | { readonly action: "delete" | "purge"; readonly name: string; readonly yes: boolean };

/**
 * A row of `queues --json`: a queue's name and its counts, as `admin.getQueueStats` gives them; a
 * subscription's row is named by its path and says its topic and subscription.
 */
type QueueCounts = { readonly name: string } & QueueStats & { topic?: string; subscription?: string };

/** A topic as `queues` shows it. */
interface TopicRow {
  readonly name: string;
  readonly subscriptions: number;
  readonly published: number;
}

/** `queue-runtime queues`: list queues with their counts; create, delete and purge one. */
export const QUEUES = operatorCommand({
  name: "queues",
  summary: "list queues with their message counts; queues create|delete|purge <name>",
  usage: USAGE,
  options: OPTIONS,
  request: queuesRequest,
  run: queues,
});

/** Does what the subcommand asks. */
function queues(call: OperatorCall<QueuesRequest>): Promise<number> {
  const { request } = call;
  if (request.action === "list") return listQueues(call);
  if (request.action === "create") return createQueue(call, request.name, request.options);
  return deleteOrPurge(call, request);
}

/** Checks the subcommand, its queue name and which options go with it. */
function queuesRequest(positionals: string[], values: OptionValues<typeof OPTIONS>): QueuesRequest {
  const [action = "list", name, extra] = positionals;
  if (action !== "list" && action !== "create" && action !== "delete" && action !== "purge")
    throw new UsageError(`unknown subcommand ${JSON.stringify(action)}: use list, create, delete or purge`);
  if (action === "list" ? name !== undefined : extra !== undefined)
    throw new UsageError(`unexpected argument ${JSON.stringify(action === "list" ? name : extra)}`);
  const misplaced = CREATE_OPTIONS.find((option) => action !== "create" && values[option] !== undefined);
  if (misplaced !== undefined) throw new UsageError(`--${misplaced} goes with queues create`);
  if (values.yes && action !== "delete" && action !== "purge")
    throw new UsageError("--yes goes with queues delete and queues purge");
  if (action === "list") return { action };
  if (name === undefined || name === "") throw new UsageError(`queues ${action} needs the name of a queue`);
  if (action !== "create") return { action, name, yes: values.yes };
  return { action, name, options: queueOptionsOf(values) };
}

/** The queue options `create` was given, and only those (the provider's defaults fill the rest). */
function queueOptionsOf(values: OptionValues<typeof OPTIONS>): QueueOptions {
  const options: QueueOptions = {};
  if (values.fifo) options.fifo = true;
  const lockDurationMs = countOption("--lock-duration", values["lock-duration"], 1, MAX_OPTION_MS);
  if (lockDurationMs !== undefined) options.lockDurationMs = lockDurationMs;
  const maxDeliveryCount = countOption("--max-deliveries", values["max-deliveries"], 1, 1_000_000);
  if (maxDeliveryCount !== undefined) options.maxDeliveryCount = maxDeliveryCount;
  if (values["dead-letter-queue"] !== undefined) options.deadLetterQueue = values["dead-letter-queue"];
  const timeToLiveMs = countOption("--time-to-live", values["time-to-live"], 1, MAX_OPTION_MS);
  if (timeToLiveMs !== undefined) options.defaultTimeToLiveMs = timeToLiveMs;
  return options;
}

/**
 * Every queue with its counts, then each topic's subscriptions (where the provider has topics); a
 * queue or topic deleted while the list is read is left out.
 */
async function listQueues({ client, io, json }: OperatorCall<QueuesRequest>): Promise<number> {
  const rows: QueueCounts[] = [];
  const counted = async (name: string, of?: { topic: string; subscription: string }) => {
    const stats = await statsOrGone(client.admin, name);
    if (stats !== undefined)
      rows.push({
        name,
        active: stats.active,
        inFlight: stats.inFlight,
        delayed: stats.delayed,
        deadLettered: stats.deadLettered,
        ...of,
      });
  };
  for (const name of await client.admin.listQueues()) await counted(name);
  const topics: TopicRow[] = [];
  if (client.capabilities.topics)
    for (const topic of await client.admin.listTopics()) {
      const stats = await unlessNotFound(() => client.admin.getTopicStats(topic));
      const subscriptions = await unlessNotFound(() => client.admin.listSubscriptions(topic));
      if (stats === undefined || subscriptions === undefined) continue;
      topics.push({ name: topic, ...stats });
      for (const subscription of subscriptions)
        await counted(subscriptionPath(topic, subscription), { topic, subscription });
    }
  show(io, json, {
    json: rows,
    terminal: [
      ...(rows.length === 0
        ? ["no queues"]
        : tableLines(
            ["NAME", "ACTIVE", "IN FLIGHT", "DELAYED", "DEAD-LETTERED"],
            rows.map((row) => [
              row.name,
              ...[row.active, row.inFlight, row.delayed, row.deadLettered].map(String),
            ]),
          )),
      ...(topics.length === 0
        ? []
        : [
            "",
            ...tableLines(
              ["TOPIC", "SUBSCRIPTIONS", "PUBLISHED"],
              topics.map((topic) => [topic.name, String(topic.subscriptions), String(topic.published)]),
            ),
          ]),
    ],
    piped: rows.map((row) => row.name),
  });
  return EXIT.done;
}

/** A queue's counts, or `undefined` when it no longer exists. */
function statsOrGone(admin: QueueAdmin, name: string): Promise<QueueStats | undefined> {
  return unlessNotFound(() => admin.getQueueStats(name));
}

/** Creates a queue and says how it was made. */
async function createQueue(
  { client, io, json }: OperatorCall<QueuesRequest>,
  name: string,
  options: QueueOptions,
): Promise<number> {
  const info = await client.admin.createQueue(name, options);
  show(io, json, { json: info, terminal: [`created queue ${name}: ${described(info)}`], piped: [name] });
  return EXIT.done;
}

/** A created queue's settings in a few words. */
function described(info: QueueInfo): string {
  const deadLetters =
    info.deadLetterQueue === null
      ? "no dead-letter queue"
      : `dead letters to ${info.deadLetterQueue}${info.maxDeliveryCount === null ? "" : ` after ${counted(info.maxDeliveryCount, "delivery", "deliveries")}`}`;
  return `${info.fifo ? "fifo" : "standard"}, locks of ${info.lockDurationMs} ms, ${deadLetters}`;
}

/**
 * Deletes or purges a queue once confirmed. Its counts are read first: an unknown queue fails
 * before anything is asked, and the question says how many messages would go.
 */
async function deleteOrPurge(
  { client, io, json }: OperatorCall<QueuesRequest>,
  { action, name, yes }: { action: "delete" | "purge"; name: string; yes: boolean },
): Promise<number> {
  const messages = counted(held(await client.admin.getQueueStats(name)), "message");
  const change =
    action === "delete"
      ? { question: `Delete queue ${name} and its ${messages}?`, undone: `queue ${name} not deleted` }
      : {
          question: `Purge queue ${name}: remove its ${messages}, locked ones included?`,
          undone: `nothing purged from ${name}`,
        };
  if (!(await confirmed(io, yes, { command: "queues", ...change }))) return EXIT.failed;
  if (action === "delete") await deleteQueue({ client, io, json }, name);
  else {
    const purged = await client.admin.purgeQueue(name);
    show(io, json, {
      json: { queue: name, purged },
      terminal: [`purged ${counted(purged, "message")} from ${name}`],
      piped: [String(purged)],
    });
  }
  return EXIT.done;
}

/**
 * Deletes a queue and says so, and says when its dead-letter queue stays: most providers keep it
 * (another queue may send its dead letters there too), Service Bus deletes it with its queue.
 */
async function deleteQueue(
  { client, io, json }: Pick<OperatorCall<QueuesRequest>, "client" | "io" | "json">,
  name: string,
): Promise<void> {
  const deadLetterQueue = await ownDeadLetterQueue(client.admin, name);
  await client.admin.deleteQueue(name);
  const kept =
    deadLetterQueue !== undefined && (await client.admin.getQueue(deadLetterQueue)) !== null
      ? deadLetterQueue
      : null;
  const note =
    kept === null
      ? []
      : [`kept its dead-letter queue ${kept}: queue-runtime queues delete ${kept} deletes it`];
  show(io, json, {
    json: { queue: name, deleted: true, deadLetterQueueKept: kept },
    terminal: [`deleted queue ${name}`, ...note],
    piped: [name],
  });
  // stdout of a pipe stays the one name a script reads; the note goes where a person still sees it.
  if (!json && !io.isTTY) for (const line of note) io.err(line);
}

/** The dead-letter queue of `name`, or `undefined` when it has none (a dead-letter queue has none of its own). */
async function ownDeadLetterQueue(admin: QueueAdmin, name: string): Promise<string | undefined> {
  const deadLetterQueue = await deadLetterQueueNamed(admin, name);
  return deadLetterQueue === name ? undefined : deadLetterQueue;
}

/** The messages a queue holds, whatever their state (its dead letters are in another queue). */
function held(stats: QueueStats): number {
  return stats.active + stats.inFlight + stats.delayed;
}
