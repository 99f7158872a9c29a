#!/usr/bin/env node
import { type Command, type CommandIO, EXIT } from "./command.js";
import { DASHBOARD } from "./dashboard-command.js";
import { DEAD_LETTERS } from "./dead-letters-command.js";
import { DELIVERIES } from "./deliveries-command.js";
import { messageOf, oneLine } from "./output.js";
import { PEEK } from "./peek-command.js";
import { processIO } from "./process-io.js";
import { QUEUES } from "./queues-command.js";
import { RECEIVE } from "./receive-command.js";
import { REDRIVE } from "./redrive-command.js";
import { SEND } from "./send-command.js";
import { SERVE } from "./serve-command.js";

/** Every command, in the order the help lists them: adding a command is adding its entry here. */
const COMMANDS: readonly Command[] = [
  QUEUES,
  SEND,
  RECEIVE,
  PEEK,
  DEAD_LETTERS,
  REDRIVE,
  DELIVERIES,
  DASHBOARD,
  SERVE,
];

/** The top-level help: every command with its summary. */
function usage(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length));
  return `Usage: queue-runtime <command> [arguments] [options]

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`).join("\n")}

queue-runtime <command> --help shows a command's arguments and options. The commands that work
on queues take the provider as --url <provider-url> or $QUEUE_URL (sqlite:./queues.db,
postgres://..., sqs://127.0.0.1:9324?region=us-east-1, servicebus:<connection string>), print a
table on a terminal, plain lines when piped, and one JSON document with --json.

Exit codes: 0 done, 1 the operation failed (an unknown queue, a refused call), 2 bad usage.`;
}

/** Runs the command line; resolves the process exit code. */
async function main(args: readonly string[], io: CommandIO): Promise<number> {
  const { name, rest } = commandOf(args);
  if (name === undefined || (name === "help" && rest.length === 0)) {
    if (rest.some((arg) => arg !== "--help" && arg !== "-h")) {
      io.err("queue-runtime: name a command first (queue-runtime --help lists them)");
      return EXIT.usage;
    }
    io.out(usage());
    return EXIT.done;
  }
  const helpOf = name === "help" ? rest[0] : undefined;
  const command = COMMANDS.find((entry) => entry.name === (helpOf ?? name));
  if (command === undefined) {
    io.err(
      `queue-runtime: unknown command ${JSON.stringify(helpOf ?? name)} (queue-runtime --help lists them)`,
    );
    return EXIT.usage;
  }
  return command.run(helpOf === undefined ? rest : ["--help"], io);
}

/**
 * The command's name and the rest of the arguments. Options may come before the name
 * (`queue-runtime --url sqlite:q.db queues`): they are handed to the command with the rest.
 */
function commandOf(args: readonly string[]): { name: string | undefined; rest: string[] } {
  const before: string[] = [];
  for (let at = 0; at < args.length; at++) {
    const arg = args[at]!;
    if (!arg.startsWith("-")) return { name: arg, rest: [...before, ...args.slice(at + 1)] };
    before.push(arg);
    // The one option before a command that takes a separate value: the provider URL.
    if (arg === "--url" && at + 1 < args.length) before.push(args[++at]!);
  }
  return { name: undefined, rest: before };
}

const io = processIO();

/** Reports what no command handled as one line, never a stack trace. */
function unexpected(error: unknown): void {
  io.err(`queue-runtime: ${oneLine(messageOf(error))}`);
}

for (const event of ["uncaughtException", "unhandledRejection"] as const)
  process.on(event, (error: unknown) => {
    unexpected(error);
    process.exit(EXIT.failed);
  });
main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    unexpected(error);
    process.exitCode = EXIT.failed;
  },
);
