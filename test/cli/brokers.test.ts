// Every operator command on RabbitMQ and on NATS JetStream, through their provider URLs, as a
// user runs it: the built command in a child process, the broker inspected through the library.
// Each test works under a prefix of its own and deletes its queues afterwards.
import { afterEach, describe, expect, it } from "vitest";
import { createClient, type QueueClient, type ReceivedMessage } from "../../src/index.js";
import { removeQueuesAndClose } from "../support/remove-queues.js";
import { cli, lines, type Ran, refused, succeeded, useBuiltCommand } from "./built-cli.js";

/** The brokers every machine of the project runs, with the query parameter that namespaces a test's queues. */
const BROKERS = [
  { name: "rabbitmq", url: "amqp://guest:guest@127.0.0.1:5672/%2F", prefix: "queuePrefix" },
  { name: "nats", url: "nats://127.0.0.1:4222", prefix: "streamPrefix" },
] as const;

useBuiltCommand();

let prefixes = 0;
const opened: QueueClient[] = [];

/** Receives `count` messages of `queue`, however the broker spreads them over receives, within 10 s. */
async function receiveCount(client: QueueClient, queue: string, count: number): Promise<ReceivedMessage[]> {
  const received: ReceivedMessage[] = [];
  const deadline = Date.now() + 10_000;
  while (received.length < count && Date.now() < deadline)
    received.push(...(await client.receiveMessages(queue, count - received.length, 1_000)));
  expect(received).toHaveLength(count);
  return received;
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map(removeQueuesAndClose));
});

describe.each(BROKERS)("queue-runtime on $name", { timeout: 120_000 }, (broker) => {
  /** A provider URL whose queues no other test (or run) sees, and a library client on it. */
  async function fresh(): Promise<{ url: string; client: QueueClient }> {
    const url = new URL(broker.url);
    url.searchParams.set(broker.prefix, `cli${process.pid}x${Date.now().toString(36)}x${++prefixes}-`);
    const client = await createClient(url.toString());
    opened.push(client);
    return { url: url.toString(), client };
  }

  /** Runs a command on `url`. */
  const on = (url: string, args: readonly string[], input?: string): Promise<Ran> =>
    cli([...args, "--url", url], input === undefined ? {} : { input });

  it("queues creates with options, lists only the prefix's queues (dead-letter queues too), with --json the counts of getQueueStats", async () => {
    const { url, client } = await fresh();
    expect(succeeded(await on(url, ["queues"]))).toBe("");
    expect(
      succeeded(
        await on(url, ["queues", "create", "orders", "--max-deliveries", "3", "--lock-duration", "5000"]),
      ),
    ).toBe("orders\n");
    expect(
      JSON.parse(succeeded(await on(url, ["queues", "create", "--json", "--fifo", "payments"]))),
    ).toMatchObject({ name: "payments", fifo: true, deadLetterQueue: "payments-dlq" });
    expect(await client.admin.getQueue("orders")).toMatchObject({
      maxDeliveryCount: 3,
      lockDurationMs: 5000,
    });
    expect(lines(succeeded(await on(url, ["queues"])))).toEqual([
      "orders",
      "orders-dlq",
      "payments",
      "payments-dlq",
    ]);

    await client.sendMessages("orders", ["a", "b", "c"]);
    const [received] = await receiveCount(client, "orders", 1);
    await client.deadLetterMessage(received!.receiptHandle, "BadOrder");
    const listed = JSON.parse(succeeded(await on(url, ["queues", "--json"]))) as { name: string }[];
    for (const { name, ...counts } of listed) expect(counts).toEqual(await client.admin.getQueueStats(name));
    expect(listed.find((row) => row.name === "orders")).toMatchObject({ active: 2 });
    expect(listed.find((row) => row.name === "orders-dlq")).toMatchObject({ active: 1 });
  });

  it("send takes the body from the argument or stdin with its attributes and session; receive gives back unless --complete", async () => {
    const { url, client } = await fresh();
    succeeded(await on(url, ["queues", "create", "orders"]));
    succeeded(await on(url, ["queues", "create", "payments", "--fifo"]));
    const first = succeeded(await on(url, ["send", "orders", "hello", "--attr", "kind=greeting"]));
    const second = succeeded(await on(url, ["send", "orders", "-"], "from\nstdin\n"));
    const sessioned = JSON.parse(
      succeeded(await on(url, ["send", "payments", "pay 1", "--session", "customer-7", "--json"])),
    );
    expect(sessioned).toEqual({ queue: "payments", messageId: expect.any(String) });

    const once = await on(url, ["receive", "orders"]);
    expect(once.stdout).toBe("hello\n");
    expect(once.stderr).toMatch(/^gave back 1 message/);
    const all = JSON.parse(
      succeeded(await on(url, ["receive", "orders", "--max", "10", "--complete", "--json"])),
    );
    expect(all.map((message: { body: string }) => message.body)).toEqual(["hello", "from\nstdin\n"]);
    expect(all[0]).toMatchObject({
      messageId: first.trim(),
      attributes: { kind: "greeting" },
      settled: "completed",
      deliveryCount: 2,
    });
    expect(all[1]).toMatchObject({ messageId: second.trim() });
    expect(await client.admin.getQueueStats("orders")).toMatchObject({ active: 0, inFlight: 0 });
    expect(await on(url, ["receive", "orders", "--wait", "0.2"])).toEqual({
      code: 0,
      stdout: "",
      stderr: "",
    });

    const [payment] = await receiveCount(client, "payments", 1);
    expect(payment).toMatchObject({ messageId: sessioned.messageId, sessionId: "customer-7" });
    expect(payment?.text()).toBe("pay 1");
  });

  it("peek shows the messages without a lock or a delivery, or says in one line that the broker cannot", async () => {
    const { url, client } = await fresh();
    succeeded(await on(url, ["queues", "create", "orders"]));
    await client.sendMessages("orders", ["first", "second"]);
    const ran = await on(url, ["peek", "orders"]);
    if (!client.capabilities.peek) {
      refused(ran, 1, /peek/i);
      return;
    }
    expect(succeeded(ran)).toBe("first\nsecond\n");
    const [next] = await receiveCount(client, "orders", 1);
    expect(next).toMatchObject({ deliveryCount: 1 });
    expect(next?.text()).toBe("first");
  });

  it("dead-letters prints reason, description and source; redrive moves them back, or --to another queue", async () => {
    const { url, client } = await fresh();
    succeeded(await on(url, ["queues", "create", "orders"]));
    succeeded(await on(url, ["queues", "create", "elsewhere"]));
    await client.sendMessages("orders", ['{"total":-5}', '{"total":"x"}']);
    const [negative, text] = await receiveCount(client, "orders", 2);
    await client.deadLetterMessage(negative!.receiptHandle, "BadTotal", "total is negative");
    await client.deadLetterMessage(text!.receiptHandle, "Unreadable");

    const shown = await on(url, ["dead-letters", "orders"]);
    if (client.capabilities.peek) {
      const rows = lines(succeeded(shown)).map((line) => line.split("\t").slice(1));
      expect(rows).toEqual([
        ["orders", "BadTotal", "total is negative"],
        ["orders", "Unreadable", ""],
      ]);
    } else refused(shown, 1, /peek/i);

    // The source queue's name redrives its dead-letter queue, as dead-letters accepts either name.
    expect(succeeded(await on(url, ["redrive", "orders"]))).toBe("2\n");
    expect(await client.admin.getQueueStats("orders")).toMatchObject({ active: 2 });
    const [again] = await receiveCount(client, "orders", 1);
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

  it("queues purge and delete ask for --yes without a terminal, then purge and delete", async () => {
    const { url, client } = await fresh();
    succeeded(await on(url, ["queues", "create", "orders"]));
    await client.sendMessages("orders", ["a", "b"]);
    refused(
      await on(url, ["queues", "purge", "orders"]),
      1,
      /nothing purged from orders: no terminal .*--yes/,
    );
    expect((await client.admin.getQueueStats("orders")).active).toBe(2);
    expect(succeeded(await on(url, ["queues", "purge", "orders", "--yes"]))).toBe("2\n");
    expect((await client.admin.getQueueStats("orders")).active).toBe(0);
    expect(JSON.parse(succeeded(await on(url, ["queues", "delete", "orders", "--yes", "--json"])))).toEqual({
      queue: "orders",
      deleted: true,
      deadLetterQueueKept: "orders-dlq",
    });
    expect(await client.admin.listQueues()).toEqual(["orders-dlq"]);
    refused(await on(url, ["send", "orders", "x"]), 1, /orders/);
  });
});
