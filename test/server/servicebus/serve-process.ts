// `queue-runtime serve` in a child process, run from the sources with `--import tsx` (never a
// wrapper such as npx, whose own process would be the one a test kills).
import { type ChildProcess, spawn } from "node:child_process";

const children: ChildProcess[] = [];

/** A `serve` running in a child process. */
export interface Served {
  readonly child: ChildProcess;
  /** Resolves once the endpoint has printed its connection string (and SQS endpoint, when it runs one); rejects if the process ends first. */
  readonly started: Promise<{ connectionString: string; sqs: string | undefined }>;
  /** Resolves with the exit code once the process has ended. */
  readonly exited: Promise<number | null>;
  output(): string;
}

/** `queue-runtime serve <args>` in a child process, with what it printed. */
export function serve(args: string[]): Served {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", "serve", ...args], {
    cwd: process.cwd(),
  });
  children.push(child);
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const started = new Promise<{ connectionString: string; sqs: string | undefined }>((resolve, reject) => {
    const look = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /connection string: (\S+)[\s\S]*storage:/.exec(output);
      if (found)
        resolve({ connectionString: found[1]!, sqs: /listening on (http:\/\/\S+)/.exec(output)?.[1] });
    };
    child.stdout.on("data", look);
    child.stderr.on("data", look);
    void exited.then(() => reject(new Error(`serve exited: ${output}`)));
  });
  // A run that is meant to fail never starts: that is not an unhandled rejection.
  started.catch(() => undefined);
  return { child, started, exited, output: () => output };
}

/** Kills what `serve` started and still runs: a failed assertion must not leave a server behind. */
export function stopServed(): void {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
}
