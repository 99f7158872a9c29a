import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** What `queue-runtime serve` accepts by default (and fauxqs ignores). */
export const SERVE_CREDENTIALS = { accessKeyId: "test", secretAccessKey: "test" };

/** The command line of `queue-runtime serve` from the compiled benchmark, with `args`. */
export function serveCommand(...args: string[]): string[] {
  return [fileURLToPath(new URL("../../src/cli/main.js", import.meta.url)), "serve", "--port", "0", ...args];
}

/** A server running in a child process. */
export interface ChildServer {
  readonly process: ChildProcess;
  readonly endpoint: string;
}

/** Starts `node <command>` and resolves once it prints `listening on <endpoint>`. */
export function startServer(command: string[]): Promise<ChildServer> {
  const child = spawn(process.execPath, command, { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(output);
      if (found) resolve({ process: child, endpoint: found[1]! });
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

/** Stops a server with SIGTERM and resolves once it has exited. */
export async function stopServer(server: ChildServer): Promise<void> {
  const exited = new Promise((resolve) => server.process.once("exit", resolve));
  server.process.kill("SIGTERM");
  await exited;
}

/** CPU time (user + system) of a server so far, in milliseconds, from /proc. */
export function cpuMsOf(server: ChildServer): number {
  const fields = readFileSync(`/proc/${server.process.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
