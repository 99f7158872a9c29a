// The README's `sqs://` example says where its credentials come from, and that holds: the URL
// carries none, the environment's AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY sign the requests.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { type ServeHandle, serve } from "../../src/cli/serve-command.js";
import { createClient } from "../../src/index.js";
import { readText } from "./markdown.js";

let server: ServeHandle;
let hostAndPort: string;
beforeAll(async () => {
  server = (await serve(["--memory", "--port", "0"], () => undefined))!;
  hostAndPort = new URL(server.server!.endpoint).host;
});
afterAll(() => server.stop());
afterEach(() => {
  vi.unstubAllEnvs();
});

/** Sends and receives one message through a client made from `url`. */
async function roundTrip(url: string): Promise<string | undefined> {
  const client = await createClient(url);
  try {
    await client.admin.createQueue("readme-sqs");
    await client.sendMessage("readme-sqs", "signed");
    const message = await client.receiveMessage("readme-sqs", 1_000);
    if (message) await client.completeMessage(message.receiptHandle);
    return message?.text();
  } finally {
    await client.close();
  }
}

describe("the README's sqs:// example", () => {
  it("says where its credentials come from", () => {
    const readme = readText("README.md");
    const lines = readme.split("\n");
    const at = lines.findIndex((line) => line.includes('createClient("sqs://'));
    expect(at).toBeGreaterThan(0);
    // The example's line and the comment lines right above it.
    let first = at;
    while (first > 0 && lines[first - 1]!.trimStart().startsWith("//")) first -= 1;
    const example = lines.slice(first, at + 1).join("\n");
    expect(example).toContain("AWS_ACCESS_KEY_ID");
    expect(example).toContain("AWS_SECRET_ACCESS_KEY");
  });

  it("signs with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY from the environment", async () => {
    vi.stubEnv("AWS_ACCESS_KEY_ID", "test");
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", "test");
    vi.stubEnv("AWS_SESSION_TOKEN", "");
    expect(await roundTrip(`sqs://${hostAndPort}?region=us-east-1`)).toBe("signed");
  });

  it("without them, fails naming them; the URL cannot carry keys", async () => {
    vi.stubEnv("AWS_ACCESS_KEY_ID", "");
    vi.stubEnv("AWS_SECRET_ACCESS_KEY", "");
    await expect(roundTrip(`sqs://${hostAndPort}?region=us-east-1`)).rejects.toThrow(/AWS_ACCESS_KEY_ID/);
    await expect(roundTrip(`sqs://test:test@${hostAndPort}?region=us-east-1`)).rejects.toThrow(
      /host and port only/,
    );
  });
});
