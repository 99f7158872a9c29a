import type { Message } from "../core/message.js";
import { attributesOption, positionalsOf } from "./arguments.js";
import { EXIT } from "./command.js";
import { OPERATOR_HELP, type OperatorCall, type OptionValues, operatorCommand } from "./operator-command.js";
import { show } from "./output.js";

const USAGE = `Usage: queue-runtime send <queue> <body | -> [options]
       queue-runtime send --topic <topic> <body | -> [options]

Sends one message and prints its id; with --topic, publishes it to a topic, and each subscription
whose rules match it gets a copy. The body is the argument as given, or with - all of stdin, byte
for byte.

  --topic <name>          publish to this topic instead of sending to a queue
  --attr <name=value>     an attribute of the message (repeat for more)
  --session <id>          its session (message group): needed on a FIFO queue
${OPERATOR_HELP}`;

const OPTIONS = {
  topic: { type: "string" },
  attr: { type: "string", multiple: true },
  session: { type: "string" },
} as const;

/** What `queue-runtime send` was asked to send, and where. */
interface SendRequest {
  readonly to: { readonly queue: string } | { readonly topic: string };
  /** The body as given, or `undefined` to read stdin. */
  readonly body: string | undefined;
  readonly attributes: Record<string, string>;
  readonly sessionId: string | undefined;
}

/** `queue-runtime send <queue> <body | ->` (or `--topic <topic>`): sends or publishes one message and prints its id. */
export const SEND = operatorCommand({
  name: "send",
  summary: "send a message (the body, or - for stdin) to a queue, or --topic to a topic, and print its id",
  usage: USAGE,
  options: OPTIONS,
  request: sendRequest,
  run: send,
});

/** Checks the queue (or topic), the body and the options. */
function sendRequest(positionals: string[], values: OptionValues<typeof OPTIONS>): SendRequest {
  const topic = values.topic;
  const [to, body] =
    topic === undefined
      ? (([queue, text]) => [{ queue }, text] as const)(positionalsOf(positionals, ["queue", "body | -"]))
      : ([{ topic }, positionalsOf(positionals, ["body | -"])[0]] as const);
  return {
    to,
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
  const { to } = request;
  const messageId =
    "topic" in to
      ? await client.publishMessage(to.topic, message)
      : await client.sendMessage(to.queue, message);
  show(io, json, {
    json: { ...to, messageId },
    terminal: [
      `${"topic" in to ? "published" : "sent"} message ${messageId} to ${"topic" in to ? to.topic : to.queue}`,
    ],
    piped: [messageId],
  });
  return EXIT.done;
}
