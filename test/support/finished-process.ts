// A process a test runs to its end: what it printed on stdout and on stderr, apart, and its exit code.
import { type ChildProcess, spawn } from "node:child_process";

/** What a finished process printed, and its exit code. */
export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `node <args>` (this Node, never a wrapper) in the current directory with exactly `env`,
 * writes `input` to its stdin and closes it, and resolves once it has ended. The child joins
 * `children`, for the test file's afterAll to kill if an assertion left it running.
 */
export function runToEnd(
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; input?: string; children: ChildProcess[] },
): Promise<Ran> {
  const child = spawn(process.execPath, [...args], { cwd: process.cwd(), env: options.env });
  options.children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdin.end(options.input ?? "");
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}
