import type { CommandIO } from "./command.js";

/** A change that cannot be undone, as the confirmation before it words it. */
export interface Change {
  /** The command asking, as its error lines name it (`queues`). */
  readonly command: string;
  /** The question, without the `[y/N]`. */
  readonly question: string;
  /** What stays undone when the answer is not yes (`nothing purged`). */
  readonly undone: string;
}

/**
 * Whether a change may go ahead: with `--yes` at once; at a terminal when the answer is yes;
 * without a terminal never (a script must say `--yes`). A refusal is one line on stderr.
 */
export async function confirmed(io: CommandIO, yes: boolean, change: Change): Promise<boolean> {
  if (yes) return true;
  if (io.ask === undefined) {
    io.err(
      `queue-runtime ${change.command}: ${change.undone}: no terminal to confirm on; add --yes to go ahead without asking`,
    );
    return false;
  }
  const answer = await io.ask(`${change.question} [y/N] `);
  if (/^y(es)?$/i.test(answer.trim())) return true;
  io.err(`queue-runtime ${change.command}: ${change.undone} (not confirmed)`);
  return false;
}
