import { type ChildProcess, spawn } from "node:child_process";
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

/** A `queue-runtime serve --servicebus` child: `endpoint` is its connection string. */
export interface ServiceBusServeChild extends ChildServer {
  /** Its management (ATOM) API, `http://127.0.0.1:<port>`, for a client's admin calls. */
  readonly administrationEndpoint: string;
}

const CONNECTION_STRING = /connection string: (\S+)/;
const MANAGEMENT_API = /management API: +(http:\/\/\S+)/;

/**
 * Starts `node <nodeArgs> <command>` and resolves with the child and what `parse` finds in its
 * stdout so far, once it finds anything.
 */
function startUntil<T>(
  command: string[],
  nodeArgs: string[],
  parse: (output: string) => T | undefined,
): Promise<{ process: ChildProcess; found: T }> {
  const child = spawn(process.execPath, [...nodeArgs, ...command], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const found = parse(output);
      if (found !== undefined) resolve({ process: child, found });
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

/**
 * Starts `node <nodeArgs> <command>` and resolves once it prints `connection string: <string>`;
 * the server's `endpoint` is that connection string.
 */
export async function startServiceBusServer(
  command: string[],
  nodeArgs: string[] = [],
): Promise<ChildServer> {
  const started = await startUntil(command, nodeArgs, (output) => CONNECTION_STRING.exec(output)?.[1]);
  return { process: started.process, endpoint: started.found };
}

/**
 * Starts `node <nodeArgs> <command>` of {@link serviceBusServeCommand} and resolves once it has
 * printed both its connection string and its management API, which comes on a later line.
 */
export async function startServiceBusServeChild(
  command: string[],
  nodeArgs: string[] = [],
): Promise<ServiceBusServeChild> {
  const started = await startUntil(command, nodeArgs, (output) => {
    const endpoint = CONNECTION_STRING.exec(output)?.[1];
    const administrationEndpoint = MANAGEMENT_API.exec(output)?.[1];
    return endpoint === undefined || administrationEndpoint === undefined
      ? undefined
      : { endpoint, administrationEndpoint };
  });
  return { process: started.process, ...started.found };
}
