// The README's examples (Quickstart, Sessions, Topics, and Topics under the Service Bus SDK against
// serve --servicebus) run as written (their `queue-runtime` imports pointed at the sources) in a
// directory of their own, and type-checked.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { serve } from "../../src/cli/serve-command.js";
import { createClient } from "../../src/index.js";
import { markedBlock, readText, root, runTypeScript, runUntilTerminated, writeExample } from "./markdown.js";

const directory = mkdtempSync(join(tmpdir(), "queue-runtime-readme-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const readme = readText("README.md");
// The SDK example imports @azure/service-bus: written under the project's node_modules, Node and tsc find it.
const inProject = mkdtempSync(join(root, "node_modules", ".readme-examples-"));
afterAll(() => rmSync(inProject, { recursive: true, force: true }));

describe("README examples", () => {
  it("the Quickstart runs as written: the message is handled and completed, and SIGTERM stops it cleanly", async () => {
    const file = writeExample(directory, "quickstart", markedBlock(readme, "quickstart"));
    const ran = await runUntilTerminated(file, directory, "order 42 from acme");
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(0);
    expect(ran.stdout).toContain("order 42 from acme");

    const client = await createClient(`sqlite:${join(directory, "queues.db")}`);
    try {
      const stats = await client.admin.getQueueStats("orders");
      expect(stats).toMatchObject({ active: 0, inFlight: 0, delayed: 0, deadLettered: 0 });
    } finally {
      await client.close();
    }
  }, 60_000);

  it("the Sessions example runs twice in a row on the same file, the second run reading the state the first set", async () => {
    const file = writeExample(directory, "sessions", markedBlock(readme, "sessions"));
    const first = await runTypeScript(file, directory);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toBe("state: null\nauthorize\ncapture\n");

    const second = await runTypeScript(file, directory);
    expect(second.stderr).toBe("");
    expect(second.code).toBe(0);
    expect(second.stdout).toBe('state: {"step":"captured"}\nauthorize\ncapture\n');
  }, 60_000);

  it("the Topics example runs as written: the subscription without rules gets both orders, the filtered one the matching one", async () => {
    const file = writeExample(directory, "topics", markedBlock(readme, "topics"));
    for (let run = 0; run < 2; run++) {
      const ran = await runTypeScript(file, directory);
      expect(ran.stderr).toBe("");
      expect(ran.code).toBe(0);
      expect(ran.stdout).toBe("billing: order 1\nbilling: order 2\neu-shipping: order 1\n");
    }
  }, 60_000);

  it("the Service Bus topics example runs as written under the SDK against serve --servicebus with the README's Config.json", async () => {
    const config = join(directory, "Config.json");
    writeFileSync(config, markedBlock(readme, "servicebus-topics-config"));
    const handle = await serve(
      [
        "--servicebus",
        "--no-sqs",
        "--config",
        config,
        "--db",
        join(directory, "servicebus.db"),
        "--amqp-port",
        "0",
        "--admin-port",
        "0",
      ],
      () => undefined,
    );
    try {
      const port = handle!.serviceBus!.amqp.port;
      const source = markedBlock(readme, "servicebus-topics").replace("localhost:5673", `localhost:${port}`);
      const ran = await runTypeScript(writeExample(inProject, "servicebus-topics", source), directory);
      expect(ran.stderr).toBe("");
      expect(ran.code).toBe(0);
      expect(ran.stdout).toBe("billing: order 1\nbilling: order 2\neu-shipping: order 1\n");
    } finally {
      await handle!.stop();
    }
  }, 60_000);

  it("the Sessions example says that getSessionState() returns bytes and how to read them", () => {
    const sessions = markedBlock(readme, "sessions");
    expect(sessions).toMatch(/getSessionState\(\)[^\n]*\n?[^\n]*Uint8Array/);
    expect(sessions).toContain("new TextDecoder().decode(");
  });

  it("the blocks type-check under the project's compiler options", async () => {
    const checked = mkdtempSync(join(tmpdir(), "queue-runtime-readme-tsc-"));
    try {
      const files = [
        writeExample(checked, "quickstart", markedBlock(readme, "quickstart")),
        writeExample(checked, "sessions", markedBlock(readme, "sessions")),
        writeExample(checked, "topics", markedBlock(readme, "topics")),
        writeExample(inProject, "servicebus-topics-checked", markedBlock(readme, "servicebus-topics")),
      ];
      writeFileSync(
        join(checked, "tsconfig.json"),
        JSON.stringify({
          extends: join(root, "tsconfig.json"),
          compilerOptions: { typeRoots: [join(root, "node_modules", "@types")], noEmit: true },
          files,
          include: [],
        }),
      );
      const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
      const output = await new Promise<string>((resolve) =>
        execFile(process.execPath, [tsc, "-p", join(checked, "tsconfig.json")], (error, stdout, stderr) =>
          resolve(error === null ? "" : `${stdout}${stderr}` || String(error)),
        ),
      );
      expect(output).toBe("");
    } finally {
      rmSync(checked, { recursive: true, force: true });
    }
  }, 120_000);
});
