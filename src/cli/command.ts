import type { Clock } from "../core/clock.js";
import { UsageError } from "./arguments.js";
import { type CommandOutput, messageOf, oneLine } from "./output.js";

/** Exit codes of every `queue-runtime` command. */
export const EXIT = { done: 0, failed: 1, usage: 2 } as const;

/** A one-line status that a command redraws in place on stderr (a progress bar). */
export interface StatusLine {
  /** Replaces the status with `line`. */
  show(line: string): void;
  /** Removes the status, leaving the cursor where it began. */
  clear(): void;
}

/** What a command reads and writes beyond its arguments, so that tests can stand in for a terminal. */
export interface CommandIO extends CommandOutput {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Times the polls of a command that watches progress. */
  readonly clock: Clock;
  /** Reads stdin to its end (a message body given as `-`). */
  readInput(): Promise<Uint8Array>;
  /** Asks a question at the terminal and resolves the answer; absent when no one is there to answer. */
  readonly ask: ((question: string) => Promise<string>) | undefined;
  /** A status line on stderr; absent when stderr is not a terminal. */
  readonly status: StatusLine | undefined;
}

/** One `queue-runtime <name>` command: adding a command is adding one of these to main's table. */
export interface Command {
  readonly name: string;
  /** One line for the top-level help. */
  readonly summary: string;
  /** Runs the command; resolves its exit code and never rejects. */
  run(args: readonly string[], io: CommandIO): Promise<number>;
}

/**
 * Reports a failure as one line on stderr, `queue-runtime <command>: <what went wrong>`, with
 * `hide` applied (to keep secrets out); resolves the exit code: 2 for a usage error, else 1.
 */
export function failed(
  command: string,
  error: unknown,
  output: CommandOutput,
  hide: (line: string) => string = (line) => line,
): number {
  const usage = error instanceof UsageError;
  const help = usage ? ` (queue-runtime ${command} --help)` : "";
  output.err(`queue-runtime ${command}: ${hide(oneLine(messageOf(error)))}${help}`);
  return usage ? EXIT.usage : EXIT.failed;
}
