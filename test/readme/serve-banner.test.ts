// The `aws` command `queue-runtime serve` suggests carries the credentials it needs (the AWS CLI
// finds none otherwise), and never the secret given on the command line.
import { execFile, execFileSync } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { type ServeHandle, serve } from "../../src/cli/serve-command.js";
import { createClient } from "../../src/index.js";

const running: ServeHandle[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((handle) => handle.stop()));
});

/** Starts `serve --memory --port 0 <args>` in process; resolves with what it printed. */
async function banner(args: string[]): Promise<{ lines: string[]; endpoint: string; command: string }> {
  const lines: string[] = [];
  const handle = await serve(["--memory", "--port", "0", ...args], (line) => lines.push(line));
  running.push(handle!);
  const endpoint = handle!.server!.endpoint;
  const command = lines.find((line) => line.trimStart().startsWith("try:"))!.replace(/^\s*try:\s*/, "");
  return { lines, endpoint, command };
}

/** The key pair in the command's environment assignments. */
function credentialsIn(command: string): { accessKeyId: string; secretAccessKey: string } {
  const accessKeyId = /(?:^| )AWS_ACCESS_KEY_ID=(\S+)/.exec(command)?.[1];
  const secretAccessKey = /(?:^| )AWS_SECRET_ACCESS_KEY=('[^']*'|\S+)/.exec(command)?.[1];
  expect(accessKeyId, command).toBeDefined();
  expect(secretAccessKey, command).toBeDefined();
  return { accessKeyId: accessKeyId!, secretAccessKey: secretAccessKey! };
}

/** Whether requests signed with `credentials` list the server's queues. */
async function listsQueues(
  endpoint: string,
  credentials: { accessKeyId: string; secretAccessKey: string },
): Promise<boolean> {
  const client = await createClient({
    provider: { type: "sqs", endpoint, region: "eu-west-1", credentials },
  });
  try {
    await client.admin.listQueues();
    return true;
  } catch {
    return false;
  } finally {
    await client.close();
  }
}

const awsCli = (() => {
  try {
    execFileSync("aws", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** Runs the suggested command in a shell whose environment holds no AWS credentials or config. */
function runInShell(command: string): Promise<{ code: number | null; output: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith("AWS_")));
  return new Promise((resolve) =>
    execFile(
      "/bin/sh",
      ["-c", command],
      {
        env: { ...env, AWS_CONFIG_FILE: "/dev/null", AWS_SHARED_CREDENTIALS_FILE: "/dev/null" },
        timeout: 30_000,
      },
      (error, stdout, stderr) =>
        resolve({
          code: error === null ? 0 : typeof error.code === "number" ? error.code : null,
          output: `${stdout}${stderr}`,
        }),
    ),
  );
}

describe("the aws command serve suggests", () => {
  it("carries the default credentials, which the server accepts", async () => {
    const { command, endpoint } = await banner(["--region", "eu-west-1"]);
    expect(command).toBe(
      `AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test aws sqs list-queues --endpoint-url ${endpoint} --region eu-west-1`,
    );
    expect(await listsQueues(endpoint, credentialsIn(command))).toBe(true);
  });

  it("carries the given access key and a placeholder for the given secret, never the secret", async () => {
    const { command, endpoint, lines } = await banner([
      "--region",
      "eu-west-1",
      "--access-key",
      "team-key",
      "--secret-key",
      "hunter2-secret",
    ]);
    expect(lines.join("\n")).not.toContain("hunter2-secret");
    const { accessKeyId, secretAccessKey } = credentialsIn(command);
    expect(accessKeyId).toBe("team-key");
    expect(secretAccessKey).toBe("'<your --secret-key>'");
    expect(await listsQueues(endpoint, { accessKeyId, secretAccessKey: "hunter2-secret" })).toBe(true);
  });

  it("carries a key pair under --no-auth too: the AWS CLI signs every request", async () => {
    const { command } = await banner(["--region", "eu-west-1", "--no-auth"]);
    expect(credentialsIn(command)).toEqual({ accessKeyId: "test", secretAccessKey: "test" });
  });

  it.skipIf(!awsCli)("runs as printed in a shell with no AWS credentials (AWS CLI installed)", async () => {
    const { command } = await banner(["--region", "eu-west-1"]);
    const ran = await runInShell(command);
    expect(ran.output).not.toMatch(/Unable to locate credentials|error/i);
    expect(ran.code).toBe(0);
  });
});
