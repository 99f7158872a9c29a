import { MAX_PEEK } from "../core/peeked-message.js";
import { countOption, positionalsOf } from "./arguments.js";
import { EXIT } from "./command.js";
import { bodyCell, bodyLine, messageJson } from "./message-view.js";
import { OPERATOR_HELP, type OperatorCall, type OptionValues, operatorCommand } from "./operator-command.js";
import { show, tableLines } from "./output.js";

/** How many messages `peek` and `dead-letters` show when `--max` is not given. */
export const DEFAULT_PEEK = 100;

const USAGE = `Usage: queue-runtime peek <queue> [options]

Shows a queue's messages in sequence order without receiving them: no lock is taken and no
delivery counted. Prints each body; the table and --json add each message's sequence number and
state (active, inFlight, delayed). A provider that cannot peek (SQS) fails with exit 1.

  --max <n>               show up to n messages (default ${DEFAULT_PEEK}, at most ${MAX_PEEK})
${OPERATOR_HELP}`;

/** The options of `peek` and `dead-letters`. */
export const PEEK_OPTIONS = { max: { type: "string" } } as const;

/** What `queue-runtime peek` or `dead-letters` was asked to show. */
export interface PeekRequest {
  readonly queue: string;
  readonly max: number;
}

/** `queue-runtime peek <queue>`: a queue's messages, without receiving them. */
export const PEEK = operatorCommand({
  name: "peek",
  summary: "show a queue's messages without receiving them (bodies, states, sequence numbers)",
  usage: USAGE,
  options: PEEK_OPTIONS,
  request: peekRequest,
  run: peek,
});

/** Checks the queue and `--max`. */
export function peekRequest(positionals: string[], values: OptionValues<typeof PEEK_OPTIONS>): PeekRequest {
  const [queue] = positionalsOf(positionals, ["queue"]);
  return { queue, max: countOption("--max", values.max, 1, MAX_PEEK) ?? DEFAULT_PEEK };
}

/** Peeks and prints the messages. */
async function peek({ client, request, io, json }: OperatorCall<PeekRequest>): Promise<number> {
  const messages = await client.admin.peekMessages(request.queue, request.max);
  show(io, json, {
    json: messages.map((message) => ({ ...messageJson(message), state: message.state })),
    terminal:
      messages.length === 0
        ? [`no message in ${request.queue}`]
        : tableLines(
            ["SEQUENCE", "STATE", "ID", "DELIVERIES", "BODY"],
            messages.map((m) => [
              m.sequenceNumber,
              m.state,
              m.messageId,
              String(m.deliveryCount),
              bodyCell(m),
            ]),
          ),
    piped: messages.map(bodyLine),
  });
  return EXIT.done;
}
