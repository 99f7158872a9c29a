import type { Message } from "../core/message.js";
import { attributesOption, positionalsOf } from "./arguments.js";
import { EXIT } from "./command.js";
import { OPERATOR_HELP, type OperatorCall, type OptionValues, operatorCommand } from "./operator-command.js";
import { show } from "./output.js";

const USAGE = `Usage: queue-runtime send <queue> <body | -> [options]

Sends one message and prints its id. The body is the argument as given, or with - all of stdin,
byte for byte.

  --attr <name=value>     an attribute of the message (repeat for more)
  --session <id>          its session (message group): needed on a FIFO queue
${OPERATOR_HELP}`;

const OPTIONS = {
  attr: { type: "string", multiple: true },
  session: { type: "string" },
} as const;

/** What `queue-runtime send` was asked to send. */
interface SendRequest {
  readonly queue: string;
  /** The body as given, or `undefined` to read stdin. */
  readonly body: string | undefined;
  readonly attributes: Record<string, string>;
  readonly sessionId: string | undefined;
}

/** `queue-runtime send <queue> <body | ->`: sends one message and prints its id. */
export const SEND = operatorCommand({
  name: "send",
  summary: "send a message (the body, or - for stdin) and print its id",
  usage: USAGE,
  options: OPTIONS,
  request: sendRequest,
  run: send,
});

/** Checks the queue, the body and the options. */
function sendRequest(positionals: string[], values: OptionValues<typeof OPTIONS>): SendRequest {
  const [queue, body] = positionalsOf(positionals, ["queue", "body | -"]);
  return {
    queue,
    body: body === "-" ? undefined : body,
    attributes: attributesOption(values.attr),
    sessionId: values.session,
  };
}

/** Sends the message and prints its id. */
async function send({ client, request, io, json }: OperatorCall<SendRequest>): Promise<number> {
  const message: Message = {
    body: request.body ?? (await io.readInput()),
    attributes: request.attributes,
    ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
  };
  const messageId = await client.sendMessage(request.queue, message);
  show(io, json, {
    json: { queue: request.queue, messageId },
    terminal: [`sent message ${messageId} to ${request.queue}`],
    piped: [messageId],
  });
  return EXIT.done;
}
