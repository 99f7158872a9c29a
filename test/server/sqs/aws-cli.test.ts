import { execFile, execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { CREDENTIALS, queueName, useSqsServer } from "./harness.js";

// The AWS CLI (Python's botocore: a serializer, signer and response parser of its own) as a
// second independent client, as the README shows it: every installed one found here (on the PATH,
// and Debian's in /usr/bin), so a CLI on the JSON protocol and one from before it (the query
// protocol) both run where both are installed.
const clis = (() => {
  const found = new Map<string, string>();
  for (const command of ["aws", "/usr/bin/aws", "/usr/local/bin/aws"]) {
    try {
      const version = execFileSync(command, ["--version"], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
      }).split(" ")[0]!;
      if (![...found.values()].includes(version)) found.set(command, version);
    } catch {
      // Not installed there.
    }
  }
  return [...found];
})();

const { server } = useSqsServer();

/** Runs `<command> sqs <args>` against the server and resolves with its JSON output, or rejects with its error output. */
function awsCli(
  command: string,
  args: string[],
  secret = CREDENTIALS.secretAccessKey,
): Promise<Record<string, unknown>> {
  const env = {
    ...process.env,
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: secret,
    AWS_DEFAULT_REGION: "us-east-1",
    AWS_CONFIG_FILE: "/dev/null",
    AWS_SHARED_CREDENTIALS_FILE: "/dev/null",
  };
  return new Promise((resolve, reject) => {
    execFile(
      command,
      ["sqs", ...args, "--endpoint-url", server().endpoint, "--output", "json"],
      { env, timeout: 30_000 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(stderr || error.message));
        else resolve(stdout.trim() === "" ? {} : (JSON.parse(stdout) as Record<string, unknown>));
      },
    );
  });
}

describe.skipIf(clis.length === 0)("SQS server under the AWS CLI (none installed when skipped)", () => {
  describe.each(clis)("%s (%s)", (command) => {
    const aws = (args: string[], secret?: string) => awsCli(command, args, secret);

    it("creates a FIFO queue, sends a batch with attributes, receives it in order and deletes it", async () => {
      const { QueueUrl } = (await aws([
        "create-queue",
        "--queue-name",
        queueName("cli", true),
        "--attributes",
        "FifoQueue=true,ContentBasedDeduplication=true",
      ])) as { QueueUrl: string };
      const entries = ["one", "two"].map((body, i) => ({
        Id: `m${i}`,
        MessageBody: body,
        MessageGroupId: "g",
        MessageAttributes: {
          team: { DataType: "String", StringValue: "core" },
          n: { DataType: "Number", StringValue: `${i}` },
        },
      }));
      const sent = (await aws([
        "send-message-batch",
        "--queue-url",
        QueueUrl,
        "--entries",
        JSON.stringify(entries),
      ])) as {
        Successful: { Id: string; SequenceNumber: string }[];
      };
      expect(sent.Successful.map((entry) => entry.Id)).toEqual(["m0", "m1"]);

      const received = (await aws([
        "receive-message",
        "--queue-url",
        QueueUrl,
        "--max-number-of-messages",
        "10",
        "--attribute-names",
        "All",
        "--message-attribute-names",
        "All",
      ])) as {
        Messages: {
          Body: string;
          ReceiptHandle: string;
          Attributes: Record<string, string>;
          MessageAttributes: Record<string, { StringValue: string }>;
        }[];
      };
      expect(received.Messages.map((message) => message.Body)).toEqual(["one", "two"]);
      expect(received.Messages.map((message) => message.Attributes.SequenceNumber)).toEqual(
        sent.Successful.map((entry) => entry.SequenceNumber),
      );
      expect(received.Messages[1]!.MessageAttributes.n!.StringValue).toBe("1");

      for (const message of received.Messages)
        await aws(["delete-message", "--queue-url", QueueUrl, "--receipt-handle", message.ReceiptHandle]);
      const { Attributes } = (await aws([
        "get-queue-attributes",
        "--queue-url",
        QueueUrl,
        "--attribute-names",
        "ApproximateNumberOfMessages",
        "ApproximateNumberOfMessagesNotVisible",
      ])) as { Attributes: Record<string, string> };
      expect(Attributes).toEqual({
        ApproximateNumberOfMessages: "0",
        ApproximateNumberOfMessagesNotVisible: "0",
      });
    }, 60_000);

    it("reports a missing queue and a wrong secret by AWS's error codes", async () => {
      await expect(aws(["get-queue-url", "--queue-name", queueName("absent")])).rejects.toThrow(
        /AWS\.SimpleQueueService\.NonExistentQueue/,
      );
      await expect(aws(["list-queues"], "not-the-secret")).rejects.toThrow(/SignatureDoesNotMatch/);
    }, 60_000);
  });
});
