import type { QueueAdmin } from "../core/admin.js";
import { type Clock, sleep } from "../core/clock.js";
import { positionalsOf } from "./arguments.js";
import { EXIT, type StatusLine } from "./command.js";
import { deadLetterQueueNamed } from "./dead-letter-queue.js";
import { OPERATOR_HELP, type OperatorCall, type OptionValues, operatorCommand } from "./operator-command.js";
import { counted, show } from "./output.js";

const USAGE = `Usage: queue-runtime redrive <queue> [options]

Moves the messages of a dead-letter queue back to the queue each came from (its
DeadLetterSourceQueue attribute), or all of them to --to, and prints how many moved. Give the
dead-letter queue or the queue whose dead letters it holds: either name works. They start
over: no dead-letter attributes, a delivery count of 0. A message whose source queue no longer
exists stays. On a terminal a progress bar shows on stderr.

  --to <queue>            move every message to this queue instead
${OPERATOR_HELP}`;

const OPTIONS = { to: { type: "string" } } as const;

/** How often the progress bar reads the dead-letter queue's counts. */
export const PROGRESS_POLL_MS = 250;

/** The width of the progress bar's bar, in characters. */
const BAR_WIDTH = 30;

/** What `queue-runtime redrive` was asked to move. */
interface RedriveRequest {
  /** The queue named: a dead-letter queue, or a queue whose dead letters to move. */
  readonly queue: string;
  readonly target: string | undefined;
}

/** `queue-runtime redrive <queue>`: moves dead letters back and prints how many moved. */
export const REDRIVE = operatorCommand({
  name: "redrive",
  summary: "move a dead-letter queue's messages back to their queues (or --to one) and print how many",
  usage: USAGE,
  options: OPTIONS,
  request: redriveRequest,
  run: redrive,
});

/** Checks the queue and `--to`. */
function redriveRequest(positionals: string[], values: OptionValues<typeof OPTIONS>): RedriveRequest {
  const [queue] = positionalsOf(positionals, ["queue"]);
  return { queue, target: values.to };
}

/** Redrives, with a progress bar on a terminal's stderr while it runs, and prints how many moved. */
async function redrive({ client, request, io, json }: OperatorCall<RedriveRequest>): Promise<number> {
  const { queue, target } = request;
  // A queue's dead letters are in its dead-letter queue: redriving the queue itself would move none.
  const deadLetterQueue = await deadLetterQueueNamed(client.admin, queue);
  const waiting = (await client.admin.getQueueStats(deadLetterQueue)).active;
  const status = json || waiting === 0 ? undefined : io.status;
  const finished = new AbortController();
  const progress =
    status === undefined
      ? Promise.resolve()
      : showProgress(
          { admin: client.admin, deadLetterQueue, waiting, status, clock: io.clock },
          finished.signal,
        );
  let moved: number;
  try {
    moved = await client.admin.redrive(deadLetterQueue, target);
  } finally {
    finished.abort();
    await progress;
    status?.clear();
  }
  const where = target === undefined ? "their source queues" : target;
  const from = deadLetterQueue === queue ? queue : `${deadLetterQueue} (the dead-letter queue of ${queue})`;
  show(io, json, {
    json: { queue, deadLetterQueue, target: target ?? null, moved },
    terminal: [`moved ${counted(moved, "message")} from ${from} to ${where}`],
    piped: [String(moved)],
  });
  return EXIT.done;
}

/** What the progress bar watches. */
interface Progress {
  readonly admin: QueueAdmin;
  readonly deadLetterQueue: string;
  /** The messages ready in the dead-letter queue when the redrive began. */
  readonly waiting: number;
  readonly status: StatusLine;
  readonly clock: Clock;
}

/** Redraws the progress bar from the dead-letter queue's counts until `signal` says the redrive ended. */
async function showProgress(progress: Progress, signal: AbortSignal): Promise<void> {
  const { admin, deadLetterQueue, waiting, status, clock } = progress;
  status.show(progressBar(0, waiting));
  for (;;) {
    await sleep(clock, PROGRESS_POLL_MS, signal);
    if (signal.aborted) return;
    // A failed read only skips a redraw: the redrive itself reports what went wrong.
    const left = await admin.getQueueStats(deadLetterQueue).then(
      (stats) => stats.active,
      () => undefined,
    );
    if (signal.aborted) return;
    if (left !== undefined) status.show(progressBar(Math.max(0, waiting - left), waiting));
  }
}

/** One line of progress: `[##########....................] 120/360 moved`. */
export function progressBar(done: number, total: number): string {
  const filled = Math.round((Math.min(done, total) / total) * BAR_WIDTH);
  return `[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}] ${Math.min(done, total)}/${total} moved`;
}
