// `queue-runtime` as a child process, run from the sources through tsx, killed after the test file.
import { type ChildProcess, spawn } from "node:child_process";
import { afterAll } from "vitest";

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

/** A running or finished `queue-runtime`: what it printed so far, and its exit code. */
export interface CliRun {
  readonly child: ChildProcess;
  stdout: string;
  stderr: string;
  readonly exited: Promise<number | null>;
}

/** Starts `queue-runtime <args>` with `QUEUE_URL` only as given in `env`. */
export function runCli(args: readonly string[], env: Record<string, string> = {}): CliRun {
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "QUEUE_URL"));
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], {
    cwd: process.cwd(),
    env: { ...inherited, ...env },
  });
  children.push(child);
  const run: CliRun = {
    child,
    stdout: "",
    stderr: "",
    exited: new Promise((resolve) => child.once("close", (code) => resolve(code))),
  };
  child.stdout!.on("data", (chunk: Buffer) => {
    run.stdout += chunk.toString();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    run.stderr += chunk.toString();
  });
  return run;
}

/** Where a started dashboard is, as it printed: the address with the token, its origin and the token. */
export interface PrintedDashboard {
  readonly address: string;
  readonly endpoint: string;
  readonly token: string;
}

/** How long a child may take to start on a loaded machine. */
const START_MS = 60_000;

/**
 * Waits until `run` (dashboard or serve) printed its dashboard's token line; resolves the address
 * and token, or rejects with what it printed when it ends first or takes longer than a minute.
 */
export async function printedDashboard(run: CliRun): Promise<PrintedDashboard> {
  const tokenLine = /^token: (\S+)$/m;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => fail(`no token line after ${START_MS} ms`), START_MS);
    const look = () => {
      if (!tokenLine.test(run.stdout)) return;
      done();
      resolve();
    };
    const fail = (why: string) => {
      done();
      reject(new Error(`${why}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`));
    };
    const ended = () => fail("it ended before it printed its token");
    const done = () => {
      clearTimeout(timer);
      run.child.stdout!.off("data", look);
      run.child.off("close", ended);
    };
    run.child.stdout!.on("data", look);
    run.child.once("close", ended);
    look();
  });
  const token = tokenLine.exec(run.stdout)![1]!;
  const address = /^queue-runtime dashboard: (http:\/\/\S+)$/m.exec(run.stdout)?.[1];
  if (address === undefined) throw new Error(`no dashboard address in ${run.stdout}`);
  return { address, endpoint: new URL(address).origin, token };
}
