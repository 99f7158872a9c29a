import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ChildServer } from "./child-server.js";

/** The command line of `queue-runtime serve --servicebus` alone (no SQS endpoint) from the compiled benchmark, with `args`. */
export function serviceBusServeCommand(...args: string[]): string[] {
  return [
    fileURLToPath(new URL("../../src/cli/main.js", import.meta.url)),
    "serve",
    "--servicebus",
    "--no-sqs",
    "--amqp-port",
    "0",
    "--admin-port",
    "0",
    ...args,
  ];
}

/** The command line of the bare rhea floor, with `args`. */
export function bareAmqpCommand(...args: string[]): string[] {
  return [fileURLToPath(new URL("bare-amqp-server.js", import.meta.url)), ...args];
}

/**
 * Starts `node <nodeArgs> <command>` and resolves once it prints `connection string: <string>`;
 * the server's `endpoint` is that connection string.
 */
export function startServiceBusServer(command: string[], nodeArgs: string[] = []): Promise<ChildServer> {
  const child = spawn(process.execPath, [...nodeArgs, ...command], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const found = /connection string: (\S+)/.exec(output);
      if (found) resolve({ process: child, endpoint: found[1]! });
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}
