// The operator commands against `queue-runtime serve` (its SQS endpoint, sqs://), both built
// commands in child processes: what an operator of SQS sees, peek refused included.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cli,
  lines,
  type Ran,
  type RunningServe,
  refused,
  startServe,
  succeeded,
  useBuiltCommand,
} from "./built-cli.js";

/** serve's default credentials: the sqs provider takes keys from the environment only. */
const CREDENTIALS = { AWS_ACCESS_KEY_ID: "test", AWS_SECRET_ACCESS_KEY: "test" };

let server: RunningServe;

useBuiltCommand();
beforeAll(async () => {
  server = await startServe();
}, 60_000);
afterAll(() => server?.stop());

/** Runs a command on the server through `$QUEUE_URL`. */
function sqs(args: readonly string[], input?: string): Promise<Ran> {
  return cli(args, {
    env: { QUEUE_URL: server.url, ...CREDENTIALS },
    ...(input === undefined ? {} : { input }),
  });
}

/** The counts `queues --json` gives for `name`. */
async function countsOf(name: string): Promise<Record<string, unknown> | undefined> {
  const listed = JSON.parse(succeeded(await sqs(["queues", "--json"]))) as Record<string, unknown>[];
  return listed.find((row) => row.name === name);
}

describe("queue-runtime against queue-runtime serve (sqs://)", { timeout: 60_000 }, () => {
  it("creates and lists queues with their counts, sends from an argument and stdin, receives, and purges with --yes", async () => {
    expect(succeeded(await sqs(["queues", "create", "orders"]))).toBe("orders\n");
    expect(lines(succeeded(await sqs(["queues"])))).toEqual(["orders", "orders-dlq"]);
    expect(succeeded(await sqs(["send", "orders", "first"]))).toMatch(/^\S+\n$/);
    expect(succeeded(await sqs(["send", "orders", "-", "--attr", "source=stdin"], "second"))).toMatch(
      /^\S+\n$/,
    );
    expect(await countsOf("orders")).toEqual({
      name: "orders",
      active: 2,
      inFlight: 0,
      delayed: 0,
      deadLettered: 0,
    });

    const given = await sqs(["receive", "orders", "--max", "10", "--wait", "1"]);
    expect(lines(given.stdout).sort()).toEqual(["first", "second"]);
    expect(given.stderr).toContain("gave back 2 messages");
    expect(await countsOf("orders")).toMatchObject({ active: 2, inFlight: 0 });

    const received = JSON.parse(succeeded(await sqs(["receive", "orders", "--json", "--wait", "1"])));
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ settled: "abandoned", deliveryCount: 2 });

    refused(await sqs(["queues", "purge", "orders"]), 1, /nothing purged from orders: no terminal/);
    expect(await countsOf("orders")).toMatchObject({ active: 2 });
    expect(succeeded(await sqs(["queues", "purge", "orders", "--yes"]))).toBe("2\n");
    expect(await countsOf("orders")).toMatchObject({ active: 0, inFlight: 0 });

    // SQS keeps a dead-letter queue when its source queue goes: the output says so.
    expect(JSON.parse(succeeded(await sqs(["queues", "delete", "orders", "--yes", "--json"])))).toEqual({
      queue: "orders",
      deleted: true,
      deadLetterQueueKept: "orders-dlq",
    });
    expect(lines(succeeded(await sqs(["queues"])))).not.toContain("orders");
    succeeded(await sqs(["queues", "delete", "orders-dlq", "--yes"]));
  });

  it("counts a message dead-lettered by its receives, and redrive moves it back and prints the count", async () => {
    succeeded(await sqs(["queues", "create", "payments", "--max-deliveries", "1"]));
    succeeded(await sqs(["send", "payments", "declined"]));
    const first = await sqs(["receive", "payments", "--wait", "1"]);
    expect(first).toMatchObject({
      code: 0,
      stdout: "declined\n",
      stderr: expect.stringContaining("gave back 1 message"),
    });
    // Its second receive finds it over the limit and moves it to the dead-letter queue instead.
    expect(await sqs(["receive", "payments", "--wait", "1"])).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(await countsOf("payments")).toMatchObject({ active: 0, deadLettered: 1 });
    expect(await countsOf("payments-dlq")).toMatchObject({ active: 1 });

    expect(succeeded(await sqs(["redrive", "payments-dlq"]))).toBe("1\n");
    expect(await countsOf("payments")).toMatchObject({ active: 1, deadLettered: 0 });
    const completed = await sqs(["receive", "payments", "--complete"]);
    expect(completed).toEqual({
      code: 0,
      stdout: "declined\n",
      stderr: "completed 1 message: removed from payments\n",
    });
  });

  it("peek and dead-letters exit 1 in one line: SQS cannot show messages without receiving them", async () => {
    succeeded(await sqs(["queues", "create", "audit"]));
    for (const args of [
      ["peek", "audit"],
      ["dead-letters", "audit"],
      ["dead-letters", "audit-dlq"],
    ])
      refused(await sqs(args), 1, "cannot show messages without receiving them");
  });

  it("an unknown queue exits 1, bad usage 2, each in one line", async () => {
    refused(await sqs(["receive", "nowhere"]), 1, /queue does not exist/i);
    refused(await sqs(["send", "nowhere", "hello"]), 1, /queue does not exist/i);
    refused(await sqs(["receive", "orders", "--max", "lots"]), 2, "--max takes a whole number");
    expect(lines(succeeded(await sqs(["queues"])))).not.toContain("nowhere");
  });
});
