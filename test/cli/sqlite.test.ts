// The operator commands on a SQLite file, run as a user runs them: the built command in a child
// process, its stdout and stderr pipes (no terminal), the file inspected through the library.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createClient, type QueueClient } from "../../src/index.js";
import { cli, lines, type Ran, refused, succeeded, useBuiltCommand } from "./built-cli.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-cli-sqlite-"));
let file = 0;

/** A new, empty SQLite store's provider URL. */
function newStore(): string {
  return `sqlite:${join(directory, `queues-${++file}.db`)}`;
}

const clients: QueueClient[] = [];

/** A library client on the same file, as an application beside the operator would have. */
async function library(url: string): Promise<QueueClient> {
  const client = await createClient({ provider: { type: "sqlite", path: url.slice("sqlite:".length) } });
  clients.push(client);
  return client;
}

useBuiltCommand();
afterAll(async () => {
  for (const client of clients) await client.close();
  rmSync(directory, { recursive: true, force: true });
});

/** Runs a command on `url`. */
function on(url: string, args: readonly string[], input?: string): Promise<Ran> {
  return cli([...args, "--url", url], input === undefined ? {} : { input });
}

describe("queue-runtime queues on a SQLite file", { timeout: 60_000 }, () => {
  it("creates queues with their options, and lists every queue (dead-letter queues too) by name, and with --json the counts of getQueueStats", async () => {
    const url = newStore();
    expect(succeeded(await on(url, ["queues"]))).toBe("");
    expect(succeeded(await on(url, ["queues", "--json"]))).toBe("[]\n");
    expect(
      succeeded(
        // A lock that outlasts the CLI runs below however slow the machine is: the counts read one locked message.
        await on(url, ["queues", "create", "orders", "--max-deliveries", "3", "--lock-duration", "600000"]),
      ),
    ).toBe("orders\n");
    const created = JSON.parse(
      succeeded(await on(url, ["queues", "create", "--json", "--fifo", "payments"])),
    );
    expect(created).toMatchObject({ name: "payments", fifo: true, deadLetterQueue: "payments-dlq" });
    expect(
      succeeded(await on(url, ["queues", "create", "audit", "--dead-letter-queue", "audit-errors"])),
    ).toBe("audit\n");

    const client = await library(url);
    expect(await client.admin.getQueue("orders")).toMatchObject({
      maxDeliveryCount: 3,
      lockDurationMs: 600_000,
    });
    await client.sendMessages("orders", ["a", "b", "c"]);
    await client.sendMessage("orders", { body: "later", delayMs: 600_000 });
    const received = await client.receiveMessage("orders");
    await client.deadLetterMessage(received!.receiptHandle, "BadOrder");
    await client.receiveMessage("orders");

    expect(lines(succeeded(await on(url, ["queues"])))).toEqual([
      "audit",
      "audit-errors",
      "orders",
      "orders-dlq",
      "payments",
      "payments-dlq",
    ]);
    const listed = JSON.parse(succeeded(await on(url, ["queues", "--json"]))) as Record<string, unknown>[];
    for (const row of listed)
      expect(Object.keys(row)).toEqual(["name", "active", "inFlight", "delayed", "deadLettered"]);
    for (const { name, ...counts } of listed)
      expect(counts).toEqual(await client.admin.getQueueStats(name as string));
    expect(listed.find((row) => row.name === "orders")).toEqual({
      name: "orders",
      active: 1,
      inFlight: 1,
      delayed: 1,
      deadLettered: 1,
    });
  });

  it("queues purge and delete change nothing without a terminal and without --yes, and say so in one line", async () => {
    const url = newStore();
    succeeded(await on(url, ["queues", "create", "orders"]));
    const client = await library(url);
    await client.sendMessages("orders", ["a", "b"]);

    refused(
      await on(url, ["queues", "purge", "orders"]),
      1,
      /nothing purged from orders: no terminal .*--yes/,
    );
    refused(
      await on(url, ["queues", "delete", "orders"]),
      1,
      /queue orders not deleted: no terminal .*--yes/,
    );
    expect((await client.admin.getQueueStats("orders")).active).toBe(2);
    expect(await client.admin.listQueues()).toContain("orders");

    expect(succeeded(await on(url, ["queues", "purge", "orders", "--yes"]))).toBe("2\n");
    expect((await client.admin.getQueueStats("orders")).active).toBe(0);
    expect(JSON.parse(succeeded(await on(url, ["queues", "purge", "--yes", "--json", "orders"])))).toEqual({
      queue: "orders",
      purged: 0,
    });
    // stdout keeps the one name a script reads; stderr says the dead-letter queue stays.
    const deleted = await on(url, ["queues", "delete", "orders", "--yes"]);
    expect(deleted).toMatchObject({
      code: 0,
      stdout: "orders\n",
      stderr: "kept its dead-letter queue orders-dlq: queue-runtime queues delete orders-dlq deletes it\n",
    });
    expect(await client.admin.listQueues()).toEqual(["orders-dlq"]);
    expect(
      JSON.parse(succeeded(await on(url, ["queues", "delete", "orders-dlq", "--yes", "--json"]))),
    ).toEqual({ queue: "orders-dlq", deleted: true, deadLetterQueueKept: null });
  });
});

describe("queue-runtime send, receive and peek on a SQLite file", { timeout: 60_000 }, () => {
  it("send prints the message id; the body is the argument, or stdin with -, byte for byte; --attr and --session go with it", async () => {
    const url = newStore();
    succeeded(await on(url, ["queues", "create", "orders"]));
    succeeded(await on(url, ["queues", "create", "payments", "--fifo"]));
    const first = succeeded(
      await on(url, ["send", "orders", "hello", "--attr", "kind=greeting", "--attr", "expr=a=b"]),
    );
    const second = succeeded(
      await on(url, ["send", "--attr", "from=stdin", "orders", "-"], '{"total": 42}\nsecond line\n'),
    );
    const sessioned = JSON.parse(
      succeeded(await on(url, ["send", "payments", "pay 1", "--session", "customer-7", "--json"])),
    );
    expect(first).toMatch(/^\S+\n$/);
    expect(second).toMatch(/^\S+\n$/);
    expect(sessioned).toEqual({ queue: "payments", messageId: expect.any(String) });

    const client = await library(url);
    const [a, b] = await client.receiveMessages("orders", 2);
    expect(a).toMatchObject({ messageId: first.trim(), attributes: { kind: "greeting", expr: "a=b" } });
    expect(a!.text()).toBe("hello");
    expect(b).toMatchObject({ messageId: second.trim(), attributes: { from: "stdin" } });
    expect(b!.text()).toBe('{"total": 42}\nsecond line\n');
    const payment = await client.receiveMessage("payments");
    expect(payment).toMatchObject({ messageId: sessioned.messageId, sessionId: "customer-7" });
  });

  it("send --topic publishes to a topic, and queues lists each subscription by its path with its counts", async () => {
    const url = newStore();
    const client = await library(url);
    await client.admin.createTopic("orders");
    await client.admin.createSubscription("orders", "all");
    await client.admin.createSubscription("orders", "eu", {
      rules: [{ name: "eu", filter: { sql: "region = 'eu'" } }],
    });
    const published = JSON.parse(
      succeeded(await on(url, ["send", "--topic", "orders", "order 1", "--attr", "region=eu", "--json"])),
    );
    expect(published).toEqual({ topic: "orders", messageId: expect.any(String) });
    expect(succeeded(await on(url, ["send", "--topic", "orders", "order 2"]))).toMatch(/^\S+\n$/);
    refused(await on(url, ["send", "--topic", "orders"]), 2, /missing <body \| ->/);

    expect(lines(succeeded(await on(url, ["queues"])))).toEqual([
      "orders/subscriptions/all",
      "orders/subscriptions/eu",
    ]);
    const listed = JSON.parse(succeeded(await on(url, ["queues", "--json"]))) as Record<string, unknown>[];
    expect(listed).toEqual([
      {
        name: "orders/subscriptions/all",
        active: 2,
        inFlight: 0,
        delayed: 0,
        deadLettered: 0,
        topic: "orders",
        subscription: "all",
      },
      {
        name: "orders/subscriptions/eu",
        active: 1,
        inFlight: 0,
        delayed: 0,
        deadLettered: 0,
        topic: "orders",
        subscription: "eu",
      },
    ]);
    const [copy] = await client.receiveMessages("orders/subscriptions/eu", 10);
    expect(copy).toMatchObject({ messageId: published.messageId, attributes: { region: "eu" } });
    expect(await client.admin.getTopicStats("orders")).toEqual({ subscriptions: 2, published: 2 });
  });

  it("receive prints each body and gives the messages back at once unless --complete; --json says which", async () => {
    const url = newStore();
    succeeded(await on(url, ["queues", "create", "orders"]));
    const client = await library(url);
    await client.sendMessages("orders", ["one", "two", "three"]);

    const once = await on(url, ["receive", "orders"]);
    expect(once.stdout).toBe("one\n");
    expect(once.stderr).toBe("gave back 1 message: it can be received again now (--complete removes it)\n");
    expect(once.code).toBe(0);
    expect(await client.admin.getQueueStats("orders")).toMatchObject({ active: 3, inFlight: 0 });

    const some = await on(url, ["receive", "--max", "2", "orders"]);
    expect(some.stdout).toBe("one\ntwo\n");
    const all = JSON.parse(
      succeeded(await on(url, ["receive", "orders", "--max", "10", "--complete", "--json"])),
    );
    expect(all.map((message: { body: string }) => message.body)).toEqual(["one", "two", "three"]);
    expect(all[0]).toMatchObject({ settled: "completed", deliveryCount: 3, attributes: {} });
    expect(await client.admin.getQueueStats("orders")).toMatchObject({ active: 0, inFlight: 0 });

    const empty = await on(url, ["receive", "orders", "--wait", "0.2"]);
    expect(empty).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("receive --wait waits for a message sent meanwhile", async () => {
    const url = newStore();
    succeeded(await on(url, ["queues", "create", "orders"]));
    const client = await library(url);
    const waiting = on(url, ["receive", "orders", "--wait", "60", "--complete"]);
    // Sent a moment later, while the command most likely waits (if it starts later, the message is there).
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await client.sendMessage("orders", "worth the wait");
    const ran = await waiting;
    expect(ran.stdout).toBe("worth the wait\n");
    expect(ran.code).toBe(0);
  }, 60_000);

  it("peek prints each body without taking a lock or counting a delivery; --json adds state and sequence number", async () => {
    const url = newStore();
    succeeded(await on(url, ["queues", "create", "orders"]));
    const client = await library(url);
    await client.sendMessages("orders", ["first", "second", "third"]);
    await client.sendMessage("orders", { body: "later", delayMs: 600_000 });
    const locked = await client.receiveMessage("orders");
    expect(locked?.text()).toBe("first");

    expect(succeeded(await on(url, ["peek", "orders"]))).toBe("first\nsecond\nthird\nlater\n");
    expect(succeeded(await on(url, ["peek", "orders", "--max", "2"]))).toBe("first\nsecond\n");
    const peeked = JSON.parse(succeeded(await on(url, ["peek", "orders", "--json"])));
    expect(peeked.map((message: { state: string }) => message.state)).toEqual([
      "inFlight",
      "active",
      "active",
      "delayed",
    ]);
    const sequences = peeked.map((message: { sequenceNumber: string }) => BigInt(message.sequenceNumber));
    expect([...sequences].sort((a, b) => (a < b ? -1 : 1))).toEqual(sequences);
    expect(peeked[1]).toMatchObject({ body: "second", deliveryCount: 0 });
    expect(await client.admin.getQueueStats("orders")).toEqual({
      active: 2,
      inFlight: 1,
      delayed: 1,
      deadLettered: 0,
    });
    const next = await client.receiveMessage("orders");
    expect(next).toMatchObject({ deliveryCount: 1 });
    expect(next?.text()).toBe("second");
  });
});

describe("queue-runtime dead-letters and redrive on a SQLite file", { timeout: 60_000 }, () => {
  /** A store with `orders` and two of its messages dead-lettered with a reason and a description. */
  async function withDeadLetters(): Promise<{ url: string; client: QueueClient }> {
    const url = newStore();
    succeeded(await on(url, ["queues", "create", "orders"]));
    succeeded(await on(url, ["queues", "create", "elsewhere"]));
    const client = await library(url);
    await client.sendMessages("orders", ['{"total":-5}', '{"total":"x"}']);
    const [negative, text] = await client.receiveMessages("orders", 2);
    await client.deadLetterMessage(negative!.receiptHandle, "BadTotal", "total is negative");
    await client.deadLetterMessage(
      text!.receiptHandle,
      "Unreadable",
      "total is not a number\nsee the schema",
    );
    return { url, client };
  }

  it("dead-letters prints each dead letter's reason and description, by the queue's name or its dead-letter queue's", async () => {
    const { url } = await withDeadLetters();
    const bySource = succeeded(await on(url, ["dead-letters", "orders"]));
    const byDeadLetterQueue = succeeded(await on(url, ["dead-letters", "orders-dlq"]));
    expect(byDeadLetterQueue).toBe(bySource);
    const rows = lines(bySource).map((line) => line.split("\t"));
    expect(rows.map((row) => row.slice(1))).toEqual([
      ["orders", "BadTotal", "total is negative"],
      ["orders", "Unreadable", "total is not a number\\nsee the schema"],
    ]);
    const json = JSON.parse(succeeded(await on(url, ["dead-letters", "orders", "--json"])));
    expect(json).toMatchObject([
      { sourceQueue: "orders", reason: "BadTotal", description: "total is negative", body: '{"total":-5}' },
      { reason: "Unreadable", description: "total is not a number\nsee the schema" },
    ]);
    expect(succeeded(await on(url, ["dead-letters", "elsewhere"]))).toBe("");
  });

  it("redrive moves the dead letters back to their queue and prints how many; --to moves them to another", async () => {
    const { url, client } = await withDeadLetters();
    expect(succeeded(await on(url, ["redrive", "orders-dlq"]))).toBe("2\n");
    expect(await client.admin.getQueueStats("orders")).toMatchObject({ active: 2, deadLettered: 0 });
    expect(succeeded(await on(url, ["redrive", "orders-dlq"]))).toBe("0\n");

    const [again] = await client.receiveMessages("orders", 1);
    await client.deadLetterMessage(again!.receiptHandle, "StillBad");
    expect(
      JSON.parse(succeeded(await on(url, ["redrive", "orders-dlq", "--to", "elsewhere", "--json"]))),
    ).toEqual({
      queue: "orders-dlq",
      deadLetterQueue: "orders-dlq",
      target: "elsewhere",
      moved: 1,
    });
    expect(await client.admin.getQueueStats("elsewhere")).toMatchObject({ active: 1 });
  });

  it("redrive given the source queue moves the dead letters of its dead-letter queue, as dead-letters accepts either name", async () => {
    const { url, client } = await withDeadLetters();
    expect(JSON.parse(succeeded(await on(url, ["redrive", "orders", "--json"])))).toEqual({
      queue: "orders",
      deadLetterQueue: "orders-dlq",
      target: null,
      moved: 2,
    });
    expect(await client.admin.getQueueStats("orders")).toMatchObject({ active: 2, deadLettered: 0 });
  });
});

describe("queue-runtime refusing, on a SQLite file", { timeout: 60_000 }, () => {
  it("exits 2 with one line for bad usage: an unknown command or option, a missing or extra argument, a bad number", async () => {
    const url = newStore();
    const cases: [readonly string[], string][] = [
      [["frobnicate"], 'unknown command "frobnicate"'],
      [["queues", "--colour", "red"], "Unknown option '--colour'"],
      [["queues", "rename", "a"], 'unknown subcommand "rename"'],
      [["queues", "create"], "queues create needs the name of a queue"],
      [["queues", "purge", "orders", "extra"], 'unexpected argument "extra"'],
      [["queues", "--fifo"], "--fifo goes with queues create"],
      [["send", "orders"], "missing <body | ->"],
      [["send", "orders", "body", "--attr", "novalue"], "--attr takes name=value"],
      [["receive"], "missing <queue>"],
      [["receive", "orders", "--max", "0"], "--max takes a whole number from 1 to 1000"],
      [["receive", "orders", "--wait", "soon"], "--wait takes seconds"],
      [["peek", "orders", "--max", "many"], "--max takes a whole number"],
      [["redrive"], "missing <queue>"],
      [["dead-letters", "a", "b"], 'unexpected argument "b"'],
    ];
    const ran = await Promise.all(cases.map(([args]) => on(url, args)));
    for (const [i, [, says]] of cases.entries()) refused(ran[i]!, 2, says);
  });

  it("exits 1 with one line for an unknown queue, and creates none", async () => {
    const url = newStore();
    const commands = [
      ["send", "nowhere", "hello"],
      ["receive", "nowhere"],
      ["peek", "nowhere"],
      ["dead-letters", "nowhere"],
      ["redrive", "nowhere"],
      ["queues", "purge", "nowhere", "--yes"],
      ["queues", "delete", "nowhere", "--yes"],
    ];
    // One after another: seven processes opening a new file at once may outwait SQLite's busy timeout on a loaded machine.
    for (const args of commands) refused(await on(url, args), 1, "queue nowhere does not exist");
    expect(succeeded(await on(url, ["queues"]))).toBe("");
  });

  it("words an unknown option the same way in every command, in one line, exit 2", async () => {
    const url = newStore();
    const commands = ["queues", "send", "receive", "redrive", "deliveries", "dashboard", "serve"];
    const ran = await Promise.all(commands.map((name) => cli([name, "--colour", "--url", url])));
    for (const [i, name] of commands.entries())
      expect(ran[i]).toEqual({
        code: 2,
        stdout: "",
        stderr: `queue-runtime ${name}: Unknown option '--colour' (queue-runtime ${name} --help)\n`,
      });
  });

  it("exits 1, not 2, when the SQLite file cannot be opened: the command line was right", async () => {
    const unopenable = `sqlite:${join(directory, "no-such-directory", "queues.db")}`;
    refused(
      await on(unopenable, ["queues"]),
      1,
      /^queue-runtime queues: cannot open SQLite file .*queues\.db: /,
    );
    refused(await cli(["dashboard", "--url", unopenable, "--port", "0"]), 1, "cannot open SQLite file");
    refused(await on("sqlx:queues.db", ["queues"]), 2, 'unknown provider "sqlx"');
  });

  it("refuses memory: and a missing provider URL; takes $QUEUE_URL, and --url over it, before or after the command", async () => {
    refused(await cli(["queues", "--url", "memory:"]), 2, "memory: would be a new, empty queue engine");
    refused(await cli(["queues"]), 2, "--url <provider-url> or $QUEUE_URL");
    const url = newStore();
    succeeded(await on(url, ["queues", "create", "orders"]));
    expect(succeeded(await cli(["queues"], { env: { QUEUE_URL: url } }))).toBe("orders\norders-dlq\n");
    expect(succeeded(await cli(["--url", url, "queues"], { env: { QUEUE_URL: "memory:" } }))).toBe(
      "orders\norders-dlq\n",
    );
  });

  it("explains every command with --help, and the top-level help lists them all", async () => {
    const commands = ["queues", "send", "receive", "peek", "dead-letters", "redrive", "deliveries", "serve"];
    const [top, ...each] = await Promise.all([
      cli(["--help"]),
      ...commands.map((name) => cli([name, "--help"])),
    ]);
    const help = succeeded(top!);
    expect(help).toContain("Usage: queue-runtime <command>");
    for (const name of commands) expect(help).toMatch(new RegExp(`^ {2}${name} +\\S`, "m"));
    for (const [i, ran] of each.entries())
      expect(succeeded(ran)).toContain(`Usage: queue-runtime ${commands[i]}`);
    expect(succeeded(await cli(["help", "receive"]))).toContain("--complete");
  });
});
