// moto's server (https://github.com/getmoto/moto), an SQS written apart from ours, in a child
// process for the tests of one file. It is spawned with the Python executable itself, found once
// through `python3` on the PATH: `python3` is often a wrapper (a pyenv shim, a venv launcher) and a
// kill of the wrapper could leave the server running.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";

/** The account moto puts every queue in when the credentials name none (its DEFAULT_ACCOUNT_ID). */
export const MOTO_ACCOUNT_ID = "123456789012";

/** Keys moto accepts: it checks that requests are signed, not by whom. */
export const MOTO_CREDENTIALS = { accessKeyId: "testing", secretAccessKey: "testing" };

/** How to install what is missing, as CI does. */
export const MOTO_INSTALL = "pip install 'moto[server]'";

/** The Python that has moto's server, or why there is none. */
export type MotoPython =
  | { readonly found: true; readonly executable: string; readonly version: string }
  | { readonly found: false; readonly reason: string };

// Prints the interpreter's own path and moto's version; the import of moto.server fails without
// the server's extras (flask, flask-cors), which `moto[server]` brings.
const PROBE = "import sys, moto, moto.server; print(sys.executable); print(moto.__version__)";

/** Looks for `python3` on the PATH with moto's server importable; never throws. */
export function findMotoPython(): MotoPython {
  const probe = spawnSync("python3", ["-c", PROBE], { encoding: "utf8", timeout: 30_000 });
  if (probe.error !== undefined)
    return { found: false, reason: `python3 could not be run (${probe.error.message})` };
  if (probe.status !== 0) {
    const last = probe.stderr.trim().split("\n").at(-1) ?? "";
    return { found: false, reason: `python3 cannot import moto's server: ${last}` };
  }
  const [executable = "", version = ""] = probe.stdout.trim().split("\n");
  return { found: true, executable, version };
}

/** A running moto server. */
export interface MotoServer {
  /** `http://127.0.0.1:<port>`, where it answers. */
  readonly endpoint: string;
  readonly version: string;
  /** What it printed so far (its request log), for a failure message. */
  output(): string;
  /** Ends the process and waits for it. */
  stop(): Promise<void>;
}

/** How long moto may take to answer after its start (about 1 s on an idle machine). */
const START_TIMEOUT_MS = 30_000;

/** Starts `python -m moto.server` on a free port and resolves once it answers HTTP. */
export async function startMoto(python: { executable: string; version: string }): Promise<MotoServer> {
  const port = await freePort();
  const child = spawn(python.executable, ["-m", "moto.server", "-H", "127.0.0.1", "-p", String(port)], {
    env: { ...process.env, PYTHONUNBUFFERED: "1", PYTHONDONTWRITEBYTECODE: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const collect = (chunk: Buffer) => {
    // Only the start and the end matter for a failure message; a request log can grow long.
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await untilAnswering(endpoint, child);
  } catch (error) {
    await stopChild(child, exited);
    throw new Error(`moto's server did not start: ${(error as Error).message}\n${output}`);
  }
  return {
    endpoint,
    version: python.version,
    output: () => output,
    stop: () => stopChild(child, exited),
  };
}

/** A TCP port nothing listens on now (the kernel's choice for port 0). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once `endpoint` answers any HTTP request; rejects if the process ends or time runs out. */
async function untilAnswering(endpoint: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the process ended (${child.exitCode ?? child.signalCode})`);
    try {
      const answer = await fetch(`${endpoint}/moto-api/`, { signal: AbortSignal.timeout(1_000) });
      await answer.arrayBuffer();
      return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`no answer within ${START_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Asks the process to end, and kills it if it has not within 3 s. */
async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const killer = setTimeout(() => child.kill("SIGKILL"), 3_000);
  await exited;
  clearTimeout(killer);
}
