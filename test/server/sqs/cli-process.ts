import { type ChildProcess, spawn } from "node:child_process";

const children: ChildProcess[] = [];

/** A `queue-runtime` command running in a child process (from the sources, through tsx). */
export interface Running {
  readonly child: ChildProcess;
  /** The endpoint a `serve` printed, once `started` has resolved. */
  readonly endpoint: string;
  /** Resolves once a `serve` has printed its endpoint; rejects if the process ends first. */
  readonly started: Promise<void>;
  output(): string;
  exit(): Promise<number | null>;
}

/** Runs `queue-runtime <args>`, collecting what it prints. */
export function run(args: string[]): Running {
  const child = spawn(process.execPath, ["--import", "tsx", "src/cli/main.ts", ...args], {
    cwd: process.cwd(),
  });
  children.push(child);
  let output = "";
  let endpoint = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const started = new Promise<void>((resolve, reject) => {
    const look = (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening on (http:\/\/\S+)[\s\S]*try:/.exec(output);
      if (found) {
        endpoint = found[1]!;
        resolve();
      }
    };
    child.stdout.on("data", look);
    child.stderr.on("data", look);
    void exited.then(() => reject(new Error(`serve exited: ${output}`)));
  });
  return {
    child,
    started,
    get endpoint() {
      return endpoint;
    },
    output: () => output,
    exit: () => exited,
  };
}

/** Kills every process `run` started that is still running: a failed assertion must not leave a server behind. */
export function stopAll(): void {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
}
