// Child processes for tests that kill and restart processes: the child's script is bundled once
// with esbuild, so that a process starts in about 100 ms instead of compiling TypeScript each
// time, and spawned with `process.execPath` itself (a SIGKILL of a wrapper would leave its child
// running). The child reports on stdout, one JSON object a line.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync } from "node:fs";
import { basename, join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const bundles = new Map<string, Promise<string>>();

/** The script `entry` bundled into plain JavaScript (once per test file), native modules left to node_modules. */
export function bundledScript(
  entry: URL,
  external: readonly string[] = ["better-sqlite3", "pg"],
): Promise<string> {
  const key = entry.href;
  let bundled = bundles.get(key);
  if (bundled === undefined) {
    bundled = (async () => {
      // Inside the project, so that the child finds the native modules in node_modules.
      const cache = join(process.cwd(), "node_modules", ".cache");
      mkdirSync(cache, { recursive: true });
      const name = basename(fileURLToPath(entry)).replace(/\.ts$/, "");
      const outfile = join(mkdtempSync(join(cache, `queue-runtime-${name}-`)), `${name}.mjs`);
      await build({
        entryPoints: [fileURLToPath(entry)],
        bundle: true,
        platform: "node",
        format: "esm",
        target: "node20",
        outfile,
        external: [...external],
        banner: {
          js: "import { createRequire as bundleRequire } from 'node:module'; const require = bundleRequire(import.meta.url);",
        },
      });
      return outfile;
    })();
    bundles.set(key, bundled);
  }
  return bundled;
}

/** A child process running a bundled script, with its JSON lines as they come. */
export class JsonLinesChild {
  readonly process: ChildProcessWithoutNullStreams;
  readonly #events: Record<string, unknown>[] = [];
  readonly #waiters: (() => void)[] = [];
  stderr = "";

  constructor(script: string, args: readonly string[], env: Record<string, string> = {}) {
    this.process = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env } });
    this.process.stderr.on("data", (chunk: Buffer) => {
      this.stderr += chunk.toString();
    });
    createInterface({ input: this.process.stdout }).on("line", (line) => {
      this.#events.push(JSON.parse(line) as Record<string, unknown>);
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.process.on("exit", () => {
      for (const wake of this.#waiters.splice(0)) wake();
    });
    // A child killed while the test writes to it must not fail the test with EPIPE.
    this.process.stdin.on("error", () => undefined);
  }

  /** Whether the process has ended. */
  get ended(): boolean {
    return this.process.exitCode !== null || this.process.signalCode !== null;
  }

  /** The first event that has `key` (or the `nth` after it), waiting up to `timeoutMs` for it. */
  async event(key: string, timeoutMs = 20_000, nth = 0): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events(key)[nth];
      if (found) return found;
      if (this.ended || Date.now() > deadline)
        throw new Error(
          `child never reported ${key} (exit ${this.process.exitCode ?? this.process.signalCode}): ${this.stderr}`,
        );
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  /** Every event reported so far that has `key`. */
  events(key: string): Record<string, unknown>[] {
    return this.#events.filter((event) => key in event);
  }

  /** Sends a line to the child's standard input. */
  tell(line = "go"): void {
    this.process.stdin.write(`${line}\n`);
  }

  /** Kills the child at once, as a crash would. */
  async kill(): Promise<void> {
    if (this.ended) return;
    const exited = new Promise((resolve) => this.process.once("exit", resolve));
    this.process.kill("SIGKILL");
    await exited;
  }

  /** Waits for the child to end by itself; resolves its exit code. */
  async exit(): Promise<number | null> {
    if (this.ended) return this.process.exitCode;
    return new Promise((resolve) => this.process.once("exit", (code) => resolve(code)));
  }
}
