import type { ReceivedMessage } from "../core/message.js";
import type { QueueClient } from "../core/queue-client.js";
import { MAX_RECEIVE_COUNT, MAX_WAIT_MS } from "../core/validation.js";
import { countOption, positionalsOf, secondsOption } from "./arguments.js";
import { EXIT } from "./command.js";
import { bodyCell, bodyLine, messageJson } from "./message-view.js";
import { OPERATOR_HELP, type OperatorCall, type OptionValues, operatorCommand } from "./operator-command.js";
import { counted, show, tableLines } from "./output.js";

const USAGE = `Usage: queue-runtime receive <queue> [options]

Receives messages and prints each body. Without --complete every message is given back
(abandoned) before the command ends, so it can be received again at once; the receive still
counts as one of its deliveries (a queue's --max-deliveries then sends it to the dead-letter
queue). With --complete the messages are removed from the queue.

  --max <n>               receive up to n messages (default 1, at most ${MAX_RECEIVE_COUNT})
  --wait <seconds>        wait up to this long for a first message when none is ready (default 0)
  --complete              complete the messages: remove them from the queue
${OPERATOR_HELP}`;

const OPTIONS = {
  max: { type: "string" },
  wait: { type: "string" },
  complete: { type: "boolean", default: false },
} as const;

/** What `queue-runtime receive` was asked to do. */
interface ReceiveRequest {
  readonly queue: string;
  readonly max: number;
  readonly waitMs: number;
  readonly complete: boolean;
}

/** `queue-runtime receive <queue>`: receives, prints each body, and completes or gives the messages back. */
export const RECEIVE = operatorCommand({
  name: "receive",
  summary: "receive messages and print each body; given back unless --complete",
  usage: USAGE,
  options: OPTIONS,
  request: receiveRequest,
  run: receive,
});

/** Checks the queue and the options. */
function receiveRequest(positionals: string[], values: OptionValues<typeof OPTIONS>): ReceiveRequest {
  const [queue] = positionalsOf(positionals, ["queue"]);
  return {
    queue,
    max: countOption("--max", values.max, 1, MAX_RECEIVE_COUNT) ?? 1,
    waitMs: secondsOption("--wait", values.wait, MAX_WAIT_MS / 1000),
    complete: values.complete,
  };
}

/**
 * Receives, settles every message, and prints them all, those whose settle failed included (a
 * completed message is gone: it must have been printed); then a settle's failure fails the command.
 */
async function receive({ client, request, io, json }: OperatorCall<ReceiveRequest>): Promise<number> {
  const messages = await client.receiveMessages(request.queue, request.max, request.waitMs);
  const settled = await settleAll(client, messages, request.complete);
  show(io, json, {
    json: messages.map((message, i) => ({ ...messageJson(message), settled: settled[i]!.outcome })),
    terminal:
      messages.length === 0
        ? [`no message in ${request.queue}`]
        : tableLines(
            ["SEQUENCE", "ID", "DELIVERIES", "BODY"],
            messages.map((m) => [m.sequenceNumber, m.messageId, String(m.deliveryCount), bodyCell(m)]),
          ),
    piped: messages.map(bodyLine),
  });
  const failure = settled.find((result) => result.error !== undefined);
  if (failure !== undefined) throw failure.error;
  if (messages.length > 0 && !json)
    io.err(
      request.complete
        ? `completed ${counted(messages.length, "message")}: removed from ${request.queue}`
        : gaveBack(messages.length),
    );
  return EXIT.done;
}

/** What the give-back of `count` messages means, the pronoun agreeing with the count. */
function gaveBack(count: number): string {
  const [it, them] = count === 1 ? ["it", "it"] : ["they", "them"];
  return `gave back ${counted(count, "message")}: ${it} can be received again now (--complete removes ${them})`;
}

/** How a received message was settled, or why it could not be (its lock then ends by itself). */
type Settled =
  | { readonly outcome: "completed" | "abandoned"; readonly error?: undefined }
  | { readonly outcome: "failed"; readonly error: unknown };

/** Completes or abandons every message, each attempted whatever happens to the others. */
async function settleAll(
  client: QueueClient,
  messages: readonly ReceivedMessage[],
  complete: boolean,
): Promise<Settled[]> {
  const outcome = complete ? "completed" : "abandoned";
  return Promise.all(
    messages.map((message) =>
      (complete
        ? client.completeMessage(message.receiptHandle)
        : client.abandonMessage(message.receiptHandle)
      ).then(
        (): Settled => ({ outcome }),
        (error: unknown): Settled => ({ outcome: "failed", error }),
      ),
    ),
  );
}
