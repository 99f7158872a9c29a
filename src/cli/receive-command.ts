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

/** Receives, settles every message it received (even when printing fails), then prints them. */
async function receive({ client, request, io, json }: OperatorCall<ReceiveRequest>): Promise<number> {
  const messages = await client.receiveMessages(request.queue, request.max, request.waitMs);
  await settleAll(client, messages, request.complete);
  const settled = request.complete ? "completed" : "abandoned";
  show(io, json, {
    json: messages.map((message) => ({ ...messageJson(message), settled })),
    terminal:
      messages.length === 0
        ? [`no message in ${request.queue}`]
        : tableLines(
            ["SEQUENCE", "ID", "DELIVERIES", "BODY"],
            messages.map((m) => [m.sequenceNumber, m.messageId, String(m.deliveryCount), bodyCell(m)]),
          ),
    piped: messages.map(bodyLine),
  });
  if (messages.length > 0 && !json)
    io.err(
      request.complete
        ? `completed ${counted(messages.length, "message")}: removed from ${request.queue}`
        : `gave back ${counted(messages.length, "message")}: they can be received again now (--complete removes them)`,
    );
  return EXIT.done;
}

/** Completes or abandons every message; the first failure is thrown once all were tried. */
async function settleAll(
  client: QueueClient,
  messages: readonly ReceivedMessage[],
  complete: boolean,
): Promise<void> {
  const results = await Promise.allSettled(
    messages.map((message) =>
      complete ? client.completeMessage(message.receiptHandle) : client.abandonMessage(message.receiptHandle),
    ),
  );
  const failure = results.find((result) => result.status === "rejected");
  if (failure !== undefined) throw failure.reason;
}
