// The built command, as a user runs it: `npm test` needs no build first, so the first test file
// that needs dist/ builds it (once, whichever of the files running side by side gets there first)
// when dist/cli/main.js is missing or older than a source file, and every test spawns
// `node dist/cli/main.js`.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect } from "vitest";
import { type Ran, runToEnd } from "../support/finished-process.js";

export type { Ran };

/** The repository's root directory. */
export const root = fileURLToPath(new URL("../../", import.meta.url));

/** The built command line. */
export const builtMain = join(root, "dist", "cli", "main.js");

/** How long a build may take on a loaded machine, waiting for another file's build included. */
const BUILD_TIMEOUT_MS = 300_000;

/** One build at a time for this checkout, across the test processes of one run and of several. */
const lockFile = join(
  tmpdir(),
  `queue-runtime-build-${createHash("sha256").update(root).digest("hex").slice(0, 16)}.lock`,
);

/** The newest modification time of a file under `directory`, in milliseconds. */
function newestUnder(directory: string): number {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  return newest;
}

/** Whether dist/ holds a build at least as new as every source file. */
function built(): boolean {
  return existsSync(builtMain) && statSync(builtMain).mtimeMs >= newestUnder(join(root, "src"));
}

/** Takes the build lock, taking over one whose process has ended; `false` while another process holds it. */
function tryLock(): boolean {
  try {
    const fd = openSync(lockFile, "wx");
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const holder = Number(readFileSync(lockFile, "utf8"));
  if (Number.isInteger(holder) && holder > 0 && alive(holder)) return false;
  unlinkSync(lockFile);
  return tryLock();
}

/** Whether a process of that id is running. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Runs the project's build (`tsc -p tsconfig.build.json`) with this Node. */
function compile(): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  return new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [tsc, "-p", join(root, "tsconfig.build.json")],
      { cwd: root },
      (error, stdout) => (error === null ? resolve() : reject(new Error(`the build failed:\n${stdout}`))),
    ),
  );
}

/** Builds dist/ unless it is up to date, waiting while another test process builds it. */
async function ensureBuilt(): Promise<void> {
  const deadline = Date.now() + BUILD_TIMEOUT_MS;
  while (!built()) {
    if (tryLock())
      try {
        if (!built()) await compile();
        return;
      } finally {
        unlinkSync(lockFile);
      }
    if (Date.now() > deadline) throw new Error(`dist/ was not built within ${BUILD_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const children: ChildProcess[] = [];

/** A test file's hooks: dist/ built (when it is stale) before its tests, every process it started killed after them. */
export function useBuiltCommand(): void {
  beforeAll(ensureBuilt, BUILD_TIMEOUT_MS);
  afterAll(stopAll);
}

/** Runs `queue-runtime <args>` from dist/ with pipes for stdin, stdout and stderr (no terminal), `input` on stdin, `$QUEUE_URL` only as given. */
export function cli(
  args: readonly string[],
  options: { env?: Record<string, string>; input?: string } = {},
): Promise<Ran> {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "QUEUE_URL"));
  return runToEnd([builtMain, ...args], {
    env: { ...inherited, ...options.env },
    ...(options.input === undefined ? {} : { input: options.input }),
    children,
  });
}

/** A `queue-runtime serve` running in a child process. */
export interface RunningServe {
  /** The provider URL of its SQS endpoint. */
  readonly url: string;
  /** Stops it with SIGTERM and resolves once it has ended. */
  stop(): Promise<void>;
}

/** A `queue-runtime serve --memory` on a free port, from dist/. */
export async function startServe(): Promise<RunningServe> {
  const child = spawn(process.execPath, [builtMain, "serve", "--memory", "--port", "0"], { cwd: root });
  children.push(child);
  let output = "";
  const endpoint = await new Promise<string>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening on http:\/\/(\S+)/.exec(output);
      if (found) resolve(found[1]!);
    });
    child.once("exit", () => reject(new Error(`serve exited: ${output}`)));
  });
  return {
    url: `sqs://${endpoint}?region=us-east-1`,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Kills every process this file started that still runs: a failed assertion must not leave one behind. */
function stopAll(): void {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
}

/** The non-empty lines of `text`. */
export function lines(text: string): string[] {
  return text.split("\n").filter((line) => line.length > 0);
}

/** Exit 0 with nothing on stderr; resolves stdout. */
export function succeeded(ran: Ran): string {
  expect(ran.stderr).toBe("");
  expect(ran.code).toBe(0);
  return ran.stdout;
}

/** One line on stderr naming the problem, nothing on stdout, no stack trace, and the exit code. */
export function refused(ran: Ran, code: 1 | 2, says: string | RegExp): void {
  expect(ran.stdout).toBe("");
  expect(lines(ran.stderr)).toHaveLength(1);
  if (typeof says === "string") expect(ran.stderr).toContain(says);
  else expect(ran.stderr).toMatch(says);
  expect(ran.stderr).not.toMatch(/\n\s+at /);
  expect(ran.code).toBe(code);
}
