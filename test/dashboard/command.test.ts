// `queue-runtime dashboard` run as a child process (from the sources, through tsx): what it
// prints, what it refuses, how it stops, and that no secret of its URLs reaches a line or a page.
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { type CliRun, printedDashboard, runCli } from "./cli-process.js";
import { afterFile, queueStore, receivingStore, scratchFile } from "./fixtures.js";
import { call, events } from "./http-client.js";

const POSTGRES_URL = process.env.QUEUE_RUNTIME_TEST_POSTGRES ?? "postgres://postgres@127.0.0.1:5432/test";

const lines = (text: string) => text.split("\n").filter((line) => line.length > 0);

/** Exit 2 or 1 with one line on stderr saying `says`, no stack, nothing on stdout. */
async function expectRefusal(run: CliRun, code: number, says: RegExp): Promise<void> {
  expect(await run.exited).toBe(code);
  expect(lines(run.stderr), run.stderr).toHaveLength(1);
  expect(run.stderr).toMatch(says);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  expect(run.stdout).toBe("");
}

describe("queue-runtime dashboard", () => {
  let url: string;
  let receiving: string;

  beforeAll(async () => {
    url = await queueStore();
    receiving = (await receivingStore()).path;
  }, 60_000);

  it("prints the address with the token, and the token on a line of its own; stops with 0 on SIGTERM", async () => {
    const run = runCli(["dashboard", "--url", url, "--port", "0", "--receiving", receiving]);
    const { address, endpoint, token } = await printedDashboard(run);
    expect(token).toMatch(/^[\w-]{32,}$/);
    expect(address).toBe(`${endpoint}/?token=${token}`);
    expect(address).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    const snapshot = await call(endpoint, "GET", "/dashboard/api/snapshot");
    expect(snapshot.json).toMatchObject({ provider: "sqlite", deliveries: expect.any(Array) });
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    expect(run.stderr).toBe("");
    expect(run.stdout).toContain("SIGTERM: stopping");
  }, 90_000);

  it("takes the provider from $QUEUE_URL, and a second one on the same port is refused (exit 1)", async () => {
    const first = runCli(["dashboard", "--port", "0"], { QUEUE_URL: url });
    const { endpoint } = await printedDashboard(first);
    const taken = runCli(["dashboard", "--url", url, "--port", new URL(endpoint).port]);
    await expectRefusal(taken, 1, /already in use/);
    first.child.kill("SIGINT");
    expect(await first.exited).toBe(0);
  }, 90_000);

  it("refuses bad usage with exit 2 and one line", async () => {
    const runs = [
      [runCli(["dashboard", "--url", url, "--bogus"]), /bogus/],
      [runCli(["dashboard", "--url", url, "--port", "http"]), /--port must be a number/],
      [runCli(["dashboard", "--url", url, "extra"]), /takes no arguments/],
      [runCli(["dashboard"]), /--url/],
      [runCli(["dashboard", "--url", "memory:"]), /memory: would be a new, empty queue engine/],
    ] as const;
    for (const [run, says] of runs) await expectRefusal(run, 2, says);
  }, 90_000);

  it("fails with exit 1 when the receiving store is not there, creating nothing", async () => {
    const missing = scratchFile("no-such-store.db");
    await expectRefusal(
      runCli(["dashboard", "--url", url, "--port", "0", "--receiving", missing]),
      1,
      /no receiving store/,
    );
    expect(existsSync(missing)).toBe(false);
  }, 90_000);

  it("prints its help with exit 0", async () => {
    const run = runCli(["dashboard", "--help"]);
    expect(await run.exited).toBe(0);
    expect(run.stdout).toContain("Usage: queue-runtime dashboard --url <provider-url>");
  }, 90_000);
});

describe("queue-runtime dashboard over a provider URL with a password", () => {
  const password = "pw-Zq81-hunter2";
  const schema = `qr_dashboard_${process.pid}_${Date.now().toString(36)}`;
  let secretUrl: string;

  beforeAll(() => {
    const provider = new URL(POSTGRES_URL);
    provider.password = password;
    provider.searchParams.set("schema", schema);
    secretUrl = provider.toString();
    afterFile(async () => {
      const admin = new pg.Client({ connectionString: POSTGRES_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    });
  });

  it("never prints it, nor shows it on the page, in a read, an event or a failure", async () => {
    const run = runCli(["dashboard", "--url", secretUrl, "--port", "0"]);
    const { endpoint, token } = await printedDashboard(run);
    const reads = await Promise.all(
      [
        "/",
        `/?token=${token}`,
        "/dashboard/assets/dashboard.js",
        "/dashboard/api/snapshot",
        "/dashboard/api/queues/nope/messages",
        "/dashboard/api/queues/nope/dead-letters",
      ].map((path) => call(endpoint, "GET", path)),
    );
    const stream = await events(endpoint);
    const snapshot = await stream.next<{ provider: string }>("snapshot", () => true);
    stream.close();
    expect(snapshot.provider).toBe("postgres");
    const shown = [...reads.map((read) => read.text), JSON.stringify(snapshot), run.stdout, run.stderr].join(
      "\n",
    );
    expect(shown).not.toContain(password);
    expect(shown).not.toContain(secretUrl);
    run.child.kill("SIGTERM");
    expect(await run.exited).toBe(0);
    expect(`${run.stdout}${run.stderr}`).not.toContain(password);
  }, 90_000);

  it("never prints it when the provider cannot be reached", async () => {
    const unreachable = new URL(secretUrl);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    unreachable.port = String((closed.address() as { port: number }).port);
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const run = runCli(["dashboard", "--url", unreachable.toString(), "--port", "0"]);
    expect(await run.exited).toBe(1);
    expect(lines(run.stderr)).toHaveLength(1);
    expect(`${run.stdout}${run.stderr}`).not.toContain(password);
  }, 90_000);
});
