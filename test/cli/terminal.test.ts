// What a person at a terminal sees: the commands run in this process with a stand-in terminal
// (stdout a terminal, an answer to give when asked, a status line on stderr), on a SQLite file.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Command, CommandIO } from "../../src/cli/command.js";
import { DEAD_LETTERS } from "../../src/cli/dead-letters-command.js";
import { PEEK } from "../../src/cli/peek-command.js";
import { QUEUES } from "../../src/cli/queues-command.js";
import { RECEIVE } from "../../src/cli/receive-command.js";
import { progressBar, REDRIVE } from "../../src/cli/redrive-command.js";
import { SEND } from "../../src/cli/send-command.js";
import { createClient, type QueueClient, VirtualClock } from "../../src/index.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-cli-terminal-"));
const clients: QueueClient[] = [];
afterAll(async () => {
  for (const client of clients) await client.close();
  rmSync(directory, { recursive: true, force: true });
});

let file = 0;

/** A new SQLite store with the queue `orders`, its URL, and a library client on it. */
async function store(): Promise<{ url: string; client: QueueClient }> {
  const path = join(directory, `queues-${++file}.db`);
  const client = await createClient({ provider: { type: "sqlite", path } });
  clients.push(client);
  await client.admin.createQueue("orders");
  return { url: `sqlite:${path}`, client };
}

/** What a command printed at the stand-in terminal, and what it was asked. */
interface Screen {
  readonly out: string[];
  readonly err: string[];
  readonly questions: string[];
  /** Every status line drawn, and `(cleared)` where it was removed. */
  readonly status: string[];
}

/** A terminal that answers `answer` when asked (no one answers when it is `undefined`), `input` on stdin. */
function terminal(answer: string | undefined, input = ""): { io: CommandIO; screen: Screen } {
  const screen: Screen = { out: [], err: [], questions: [], status: [] };
  const io: CommandIO = {
    out: (line) => void screen.out.push(line),
    err: (line) => void screen.err.push(line),
    isTTY: true,
    env: {},
    clock: new VirtualClock(),
    readInput: async () => new TextEncoder().encode(input),
    ask:
      answer === undefined
        ? undefined
        : async (question) => {
            screen.questions.push(question);
            return answer;
          },
    status: {
      show: (line) => void screen.status.push(line),
      clear: () => void screen.status.push("(cleared)"),
    },
  };
  return { io, screen };
}

/** Runs `command` at a terminal that answers `answer`; resolves the exit code and the screen. */
async function atTerminal(
  command: Command,
  args: readonly string[],
  answer?: string,
  input?: string,
): Promise<{ code: number; screen: Screen }> {
  const { io, screen } = terminal(answer, input);
  const code = await command.run(args, io);
  return { code, screen };
}

describe("queue-runtime at a terminal", () => {
  it("queues is a table with a header and a column per count", async () => {
    const { url, client } = await store();
    await client.sendMessages("orders", ["a", "b"]);
    await client.receiveMessage("orders");
    const { code, screen } = await atTerminal(QUEUES, ["--url", url]);
    expect(code).toBe(0);
    expect(screen.out).toEqual([
      "NAME        ACTIVE  IN FLIGHT  DELAYED  DEAD-LETTERED",
      "orders      1       1          0        0",
      "orders-dlq  0       0          0        0",
    ]);
  });

  it("queues purge asks first, and purges nothing unless the answer is yes", async () => {
    const { url, client } = await store();
    await client.sendMessages("orders", ["a", "b"]);
    const declined = await atTerminal(QUEUES, ["purge", "orders", "--url", url], "n");
    expect(declined.code).toBe(1);
    expect(declined.screen.questions).toEqual([
      "Purge queue orders: remove its 2 messages, locked ones included? [y/N] ",
    ]);
    expect(declined.screen.err).toEqual(["queue-runtime queues: nothing purged from orders (not confirmed)"]);
    expect(declined.screen.out).toEqual([]);
    expect((await client.admin.getQueueStats("orders")).active).toBe(2);

    const confirmed = await atTerminal(QUEUES, ["purge", "orders", "--url", url], "y");
    expect(confirmed.code).toBe(0);
    expect(confirmed.screen.out).toEqual(["purged 2 messages from orders"]);
    expect((await client.admin.getQueueStats("orders")).active).toBe(0);
  });

  it("queues delete asks first; with stdin not a terminal it says so and deletes nothing", async () => {
    const { url, client } = await store();
    const unattended = await atTerminal(QUEUES, ["delete", "orders", "--url", url], undefined);
    expect(unattended.code).toBe(1);
    expect(unattended.screen.err).toEqual([
      "queue-runtime queues: queue orders not deleted: no terminal to confirm on; add --yes to go ahead without asking",
    ]);
    expect(await client.admin.listQueues()).toContain("orders");

    const deleted = await atTerminal(QUEUES, ["delete", "orders", "--url", url], "yes");
    expect(deleted.screen.questions).toEqual(["Delete queue orders and its 0 messages? [y/N] "]);
    expect(deleted.screen.out).toEqual([
      "deleted queue orders",
      "kept its dead-letter queue orders-dlq: queue-runtime queues delete orders-dlq deletes it",
    ]);
    expect(deleted.code).toBe(0);
    expect(await client.admin.listQueues()).toEqual(["orders-dlq"]);

    // A queue without a dead-letter queue of its own (a dead-letter queue) has nothing to keep.
    const alone = await atTerminal(QUEUES, ["delete", "orders-dlq", "--yes", "--url", url]);
    expect(alone.screen.out).toEqual(["deleted queue orders-dlq"]);
    expect(await client.admin.listQueues()).toEqual([]);
  });

  it("queues create says how the queue was made", async () => {
    const { url } = await store();
    const { code, screen } = await atTerminal(QUEUES, [
      "create",
      "invoices",
      "--max-deliveries",
      "5",
      "--url",
      url,
    ]);
    expect(code).toBe(0);
    expect(screen.out).toEqual([
      "created queue invoices: standard, locks of 30000 ms, dead letters to invoices-dlq after 5 deliveries",
    ]);
  });

  it("send reads stdin for - and says where the message went", async () => {
    const { url, client } = await store();
    const { code, screen } = await atTerminal(SEND, ["orders", "-", "--url", url], undefined, "from stdin");
    expect(code).toBe(0);
    const message = await client.receiveMessage("orders");
    expect(message?.text()).toBe("from stdin");
    expect(screen.out).toEqual([`sent message ${message?.messageId} to orders`]);
  });

  it("receive is a table of sequence, id, deliveries and body (one line, shortened), and says the messages were given back", async () => {
    const { url, client } = await store();
    const [first] = await client.sendMessages("orders", ["line one\nline two", "x".repeat(100)]);
    const { code, screen } = await atTerminal(RECEIVE, ["orders", "--max", "2", "--url", url]);
    expect(code).toBe(0);
    const [header, ...rows] = screen.out;
    expect(header).toMatch(/^SEQUENCE +ID +DELIVERIES +BODY$/);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toContain(first);
    expect(rows[0]).toMatch(/ 1 +line one\\nline two$/);
    expect(rows[1]).toMatch(/ x{59}…$/);
    expect(screen.err).toEqual([
      "gave back 2 messages: they can be received again now (--complete removes them)",
    ]);
    expect((await client.admin.getQueueStats("orders")).active).toBe(2);

    const empty = await atTerminal(RECEIVE, ["orders", "--complete", "--max", "5", "--url", url]);
    expect(empty.screen.err).toEqual(["completed 2 messages: removed from orders"]);
    const none = await atTerminal(RECEIVE, ["orders", "--url", url]);
    expect(none.screen.out).toEqual(["no message in orders"]);
  });

  it("peek is a table with each message's state", async () => {
    const { url, client } = await store();
    await client.sendMessages("orders", ["a", "b"]);
    await client.receiveMessage("orders");
    const { screen } = await atTerminal(PEEK, ["orders", "--url", url]);
    expect(screen.out[0]).toMatch(/^SEQUENCE +STATE +ID +DELIVERIES +BODY$/);
    expect(screen.out.slice(1).map((row) => row.split(/ +/)[1])).toEqual(["inFlight", "active"]);
  });

  it("dead-letters is a table of source, reason and description, a dash where there is none", async () => {
    const { url, client } = await store();
    await client.sendMessages("orders", ["a", "b"]);
    const [a, b] = await client.receiveMessages("orders", 2);
    await client.deadLetterMessage(a!.receiptHandle, "BadTotal", "total is negative");
    await client.deadLetterMessage(b!.receiptHandle, "NoCustomer");
    const { screen } = await atTerminal(DEAD_LETTERS, ["orders", "--url", url]);
    expect(screen.out[0]).toMatch(/^SEQUENCE +ID +SOURCE +REASON +DESCRIPTION$/);
    expect(screen.out[1]).toMatch(/ orders +BadTotal +total is negative$/);
    expect(screen.out[2]).toMatch(/ orders +NoCustomer +-$/);
  });

  it("redrive draws a progress bar on stderr while it runs, removes it, and says how many moved where", async () => {
    const { url, client } = await store();
    await client.sendMessages("orders", ["a", "b"]);
    for (const message of await client.receiveMessages("orders", 2))
      await client.deadLetterMessage(message.receiptHandle, "Failed");
    const { code, screen } = await atTerminal(REDRIVE, ["orders-dlq", "--url", url]);
    expect(code).toBe(0);
    expect(screen.status[0]).toBe(progressBar(0, 2));
    expect(screen.status.at(-1)).toBe("(cleared)");
    expect(screen.out).toEqual(["moved 2 messages from orders-dlq to their source queues"]);

    const nothing = await atTerminal(REDRIVE, ["orders-dlq", "--json", "--url", url]);
    expect(nothing.screen.status).toEqual([]);
    expect(JSON.parse(nothing.screen.out.join("\n"))).toEqual({
      queue: "orders-dlq",
      deadLetterQueue: "orders-dlq",
      target: null,
      moved: 0,
    });
  });

  it("redrive given a queue that is not a dead-letter queue redrives its dead-letter queue and says which", async () => {
    const { url, client } = await store();
    await client.sendMessages("orders", ["a", "b", "c"]);
    for (const message of await client.receiveMessages("orders", 3))
      await client.deadLetterMessage(message.receiptHandle, "Failed");
    const { code, screen } = await atTerminal(REDRIVE, ["orders", "--url", url]);
    expect(code).toBe(0);
    expect(screen.out).toEqual([
      "moved 3 messages from orders-dlq (the dead-letter queue of orders) to their source queues",
    ]);
    expect(await client.admin.getQueueStats("orders")).toMatchObject({ active: 3, deadLettered: 0 });
  });

  it("the progress bar fills as messages move", () => {
    expect(progressBar(0, 360)).toBe(`[${".".repeat(30)}] 0/360 moved`);
    expect(progressBar(120, 360)).toBe(`[${"#".repeat(10)}${".".repeat(20)}] 120/360 moved`);
    expect(progressBar(400, 360)).toBe(`[${"#".repeat(30)}] 360/360 moved`);
  });
});
