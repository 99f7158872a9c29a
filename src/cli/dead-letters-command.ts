import type { PeekedMessage } from "../core/admin.js";
import { MAX_PEEK } from "../core/peeked-message.js";
import { DEAD_LETTER_ATTRIBUTES } from "../rules/dead-letters.js";
import { EXIT } from "./command.js";
import { deadLetterQueueNamed } from "./dead-letter-queue.js";
import { messageJson } from "./message-view.js";
import { OPERATOR_HELP, type OperatorCall, operatorCommand } from "./operator-command.js";
import { printable, show, tableLines } from "./output.js";
import { DEFAULT_PEEK, PEEK_OPTIONS, type PeekRequest, peekRequest } from "./peek-command.js";

const USAGE = `Usage: queue-runtime dead-letters <queue> [options]

Shows the dead letters of a queue: give the queue or its dead-letter queue, either name works.
Prints each message's id, source queue, reason and description, without receiving it (a peek);
--json adds the bodies. A provider that cannot peek (SQS) fails with exit 1: receiving a dead
letter to show it would count a delivery. queue-runtime redrive moves them back.

  --max <n>               show up to n dead letters (default ${DEFAULT_PEEK}, at most ${MAX_PEEK})
${OPERATOR_HELP}`;

/** `queue-runtime dead-letters <queue>`: the dead letters of a queue, with their reasons. */
export const DEAD_LETTERS = operatorCommand({
  name: "dead-letters",
  summary: "show a queue's dead letters with reason and description (either queue name works)",
  usage: USAGE,
  options: PEEK_OPTIONS,
  request: peekRequest,
  run: deadLetters,
});

/** Peeks the dead-letter queue and prints each dead letter's reason and description. */
async function deadLetters({ client, request, io, json }: OperatorCall<PeekRequest>): Promise<number> {
  const deadLetterQueue = await deadLetterQueueNamed(client.admin, request.queue);
  const messages = await client.admin.peekMessages(deadLetterQueue, request.max);
  const rows = messages.map((message) => {
    const { sourceQueue, reason, description } = deadLetterOf(message);
    return [message.messageId, sourceQueue, reason, description].map((cell) => printable(cell ?? ""));
  });
  show(io, json, {
    json: messages.map((message) => ({ ...messageJson(message), ...deadLetterOf(message) })),
    terminal:
      messages.length === 0
        ? [`no dead letters in ${deadLetterQueue}`]
        : tableLines(
            ["SEQUENCE", "ID", "SOURCE", "REASON", "DESCRIPTION"],
            messages.map((message, i) => [message.sequenceNumber, ...rows[i]!.map(orDash)]),
          ),
    piped: rows.map((row) => row.join("\t")),
  });
  return EXIT.done;
}

/** Where a dead letter came from and why it was dead-lettered, as its attributes say (`null` when absent). */
function deadLetterOf(
  message: PeekedMessage,
): Record<"sourceQueue" | "reason" | "description", string | null> {
  const attribute = (name: string) => message.attributes[name] ?? null;
  return {
    sourceQueue: attribute(DEAD_LETTER_ATTRIBUTES.sourceQueue),
    reason: attribute(DEAD_LETTER_ATTRIBUTES.reason),
    description: attribute(DEAD_LETTER_ATTRIBUTES.description),
  };
}

/** A table cell for a value that may be empty. */
function orDash(cell: string): string {
  return cell === "" ? "-" : cell;
}
