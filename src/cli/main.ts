#!/usr/bin/env node
import { QueueError } from "../core/errors.js";
import { DASHBOARD_USAGE, dashboardCommand } from "./dashboard-command.js";
import { DELIVERIES_USAGE, deliveriesCommand } from "./deliveries-command.js";
import { SERVE_USAGE, serve } from "./serve-command.js";

const USAGE = `Usage: queue-runtime <command> [options]

Commands:
  serve       run an SQS-compatible endpoint on the queue engine (queue-runtime serve --help)
  deliveries  list, retry and dismiss a receiver's failed deliveries and parked messages
              (queue-runtime deliveries --help)
  dashboard   a web page of the queues, their messages and dead letters (queue-runtime dashboard --help)
`;

/** Runs the command line; resolves the process exit code. */
async function main(args: readonly string[]): Promise<number> {
  const [command, ...rest] = args;
  if (command === undefined || command === "--help" || command === "help") {
    console.log(`${USAGE}\n${SERVE_USAGE}\n\n${DELIVERIES_USAGE}\n\n${DASHBOARD_USAGE}`);
    return 0;
  }
  const output = {
    out: (line: string) => process.stdout.write(`${line}\n`),
    err: (line: string) => process.stderr.write(`${line}\n`),
    isTTY: process.stdout.isTTY === true,
  };
  if (command === "deliveries") return deliveriesCommand(rest, output);
  if (command === "dashboard") return dashboardCommand(rest, output);
  if (command !== "serve") {
    console.error(`unknown command ${JSON.stringify(command)}\n\n${USAGE}`);
    return 2;
  }
  const handle = await serve(rest, (line) => console.log(line));
  if (handle === undefined) return 0;
  await new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      console.log(`\n${signal}: stopping (answering requests under way, closing the store)`);
      process.once(signal, () => process.exit(130));
      void handle.stop().then(resolve);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  console.log("stopped");
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(QueueError.is(error) ? `queue-runtime: ${error.message}` : error);
    process.exitCode = 1;
  },
);
