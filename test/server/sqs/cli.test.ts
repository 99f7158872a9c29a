import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ListQueuesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";
import { afterAll, describe, expect, it, vi } from "vitest";
import { run, stopAll } from "./cli-process.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-cli-"));
afterAll(() => {
  stopAll();
  rmSync(directory, { recursive: true, force: true });
});

const clientFor = (endpoint: string) =>
  new SQSClient({
    endpoint,
    region: "eu-west-1",
    credentials: { accessKeyId: "key", secretAccessKey: "secret" },
    maxAttempts: 1,
  });

describe("queue-runtime serve", () => {
  it.each([
    ["--db", "serve.db"],
    ["--journal", "serve.journal"],
  ])(
    "prints its endpoint, stops cleanly on SIGTERM and finds every queue and unacknowledged message after a restart (%s)",
    async (storage, file) => {
      const args = [
        "serve",
        storage,
        join(directory, file),
        "--port",
        "0",
        "--access-key",
        "key",
        "--secret-key",
        "secret",
        "--region",
        "eu-west-1",
      ];
      const first = run(args);
      await first.started;
      expect(first.output()).toContain("region:      eu-west-1");
      expect(first.output()).toContain("access key key");
      expect(first.output()).not.toContain("secret secret");
      const sqs = clientFor(first.endpoint);
      const { QueueUrl } = await sqs.send(
        new CreateQueueCommand({ QueueName: "kept", Attributes: { VisibilityTimeout: "1" } }),
      );
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "in flight" }));
      await sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: "waiting" }));
      expect((await sqs.send(new ReceiveMessageCommand({ QueueUrl }))).Messages).toHaveLength(1);
      const polling = sqs.send(
        new ReceiveMessageCommand({ QueueUrl: `${QueueUrl}`, WaitTimeSeconds: 20, MaxNumberOfMessages: 1 }),
      );
      await new Promise((resolve) => setTimeout(resolve, 200));
      const stoppedAt = Date.now();
      first.child.kill("SIGTERM");
      await polling.catch(() => undefined);
      expect(await first.exit()).toBe(0);
      expect(Date.now() - stoppedAt).toBeLessThan(5_000);
      expect(first.output()).toContain("stopped");
      sqs.destroy();

      const second = run(args);
      await second.started;
      const again = clientFor(second.endpoint);
      const { QueueUrls } = await again.send(new ListQueuesCommand({}));
      expect(QueueUrls?.map((url) => url.split("/").pop())).toEqual(["kept"]);
      const url = QueueUrls![0]!;
      const { Attributes } = await again.send(
        new GetQueueAttributesCommand({
          QueueUrl: url,
          AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
        }),
      );
      expect(
        Number(Attributes?.ApproximateNumberOfMessages) +
          Number(Attributes?.ApproximateNumberOfMessagesNotVisible),
      ).toBe(2);
      const bodies: string[] = [];
      for (let i = 0; i < 20 && bodies.length < 2; i++) {
        const { Messages } = await again.send(
          new ReceiveMessageCommand({ QueueUrl: url, WaitTimeSeconds: 1, MaxNumberOfMessages: 10 }),
        );
        for (const message of Messages ?? []) bodies.push(message.Body!);
      }
      expect(bodies.sort()).toEqual(["in flight", "waiting"]);
      again.destroy();
      second.child.kill("SIGINT");
      expect(await second.exit()).toBe(0);
    },
    60_000,
  );

  it("says so when its port is taken, without a stack trace", async () => {
    const holder = run(["serve", "--memory", "--port", "0"]);
    await holder.started;
    const port = new URL(holder.endpoint).port;
    const clash = run(["serve", "--memory", "--port", port]);
    await clash.started.catch(() => undefined);
    expect(await clash.exit()).toBe(1);
    expect(clash.output()).toContain(`port ${port} on 127.0.0.1 is already in use`);
    expect(clash.output()).not.toMatch(/\n\s+at /);
    holder.child.kill("SIGTERM");
    expect(await holder.exit()).toBe(0);
  }, 30_000);

  it("explains its options, and refuses unknown ones and contradictory ones as bad usage (exit 2)", async () => {
    const help = run(["serve", "--help"]);
    await help.started.catch(() => undefined);
    expect(await help.exit()).toBe(0);
    expect(help.output()).toContain("--no-auth");
    const wrong = run(["serve", "--colour", "red"]);
    await wrong.started.catch(() => undefined);
    expect(await wrong.exit()).toBe(2);
    expect(wrong.output()).toContain("Unknown option '--colour'");
    const both = run(["serve", "--db", join(directory, "x.db"), "--journal", join(directory, "x.journal")]);
    await both.started.catch(() => undefined);
    expect(await both.exit()).toBe(2);
    expect(both.output()).toContain("give one of --db, --journal and --memory, not several");
  }, 30_000);

  it("logs every request it answers with --log-requests, and why it refused one", async () => {
    const server = run(["serve", "--memory", "--port", "0", "--log-requests"]);
    await server.started;
    const sqs = new SQSClient({
      endpoint: server.endpoint,
      region: "us-east-1",
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
      maxAttempts: 1,
    });
    await sqs.send(new CreateQueueCommand({ QueueName: "logged" }));
    const wrong = new SQSClient({
      endpoint: server.endpoint,
      region: "us-east-1",
      credentials: { accessKeyId: "test", secretAccessKey: "not-the-secret" },
      maxAttempts: 1,
    });
    await wrong.send(new ListQueuesCommand({})).catch(() => undefined);
    await vi.waitFor(() => {
      expect(server.output()).toMatch(/\n\S+Z CreateQueue 200 \d+\.\d ms \(json\)\n/);
      expect(server.output()).toMatch(
        /\n\S+Z - 403 \d+\.\d ms \(json\) SignatureDoesNotMatch: The request signature we calculated does not match/,
      );
    });
    sqs.destroy();
    wrong.destroy();
    server.child.kill("SIGTERM");
    expect(await server.exit()).toBe(0);
  }, 30_000);

  it("names the storage, credentials or address it cannot use, without a stack trace", async () => {
    const notADatabase = join(directory, "notes.db");
    writeFileSync(notADatabase, "not a database\n".repeat(100));
    // Flags that contradict each other are bad usage (exit 2); what cannot be opened or bound, a failure (exit 1).
    const refusals: [args: string[], says: string, code: number][] = [
      [["--db", notADatabase], `cannot open SQLite file ${notADatabase}: file is not a database`, 1],
      [["--journal", join(directory, "missing", "j.journal")], "cannot open the journal", 1],
      [["--memory", "--access-key", "k"], "give --access-key and --secret-key together", 2],
      [
        ["--memory", "--no-auth", "--secret-key", "s"],
        "give --no-auth or --access-key and --secret-key, not both",
        2,
      ],
      [["--memory", "--host", "no-such-host.invalid"], "cannot listen on no-such-host.invalid port", 1],
    ];
    await Promise.all(
      refusals.map(async ([args, says, code]) => {
        const refused = run(["serve", "--port", "0", ...args]);
        await refused.started.catch(() => undefined);
        expect(await refused.exit()).toBe(code);
        expect(refused.output()).toContain(says);
        expect(refused.output()).not.toMatch(/\n\s+at /);
      }),
    );
  }, 30_000);
});
