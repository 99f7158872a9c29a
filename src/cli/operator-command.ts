import type { QueueClient } from "../core/queue-client.js";
import { type CommandOptions, parseCommandArgs, type UsageError } from "./arguments.js";
import { type Command, type CommandIO, EXIT, failed } from "./command.js";
import { openOperatorClient, operatorUrl } from "./operator-client.js";
import { withoutSecrets } from "./secrets.js";

/** The options every operator command takes besides its own. */
const OPERATOR_OPTIONS = {
  url: { type: "string" },
  json: { type: "boolean", default: false },
  help: { type: "boolean", default: false },
} as const;

/** The lines every operator command's help ends with. */
export const OPERATOR_HELP = `  --url <provider-url>    the provider: sqlite:<path>, postgres://..., sqs://<host:port>?region=..,
                          servicebus:<connection string> (default: $QUEUE_URL)
  --json                  print one JSON document instead of a table or lines
  --help                  show this help

Exit codes: 0 done, 1 the operation failed (an unknown queue, a refused call), 2 bad usage.`;

/** The values of a command's own options once parsed. */
export type OptionValues<O extends CommandOptions> = ReturnType<typeof parseCommandArgs<O>>["values"];

/** What an operator command's work is given. */
export interface OperatorCall<R> {
  readonly client: QueueClient;
  /** What the arguments asked for, once checked. */
  readonly request: R;
  readonly io: CommandIO;
  /** Whether `--json` was given. */
  readonly json: boolean;
}

/** An operator command: its help, its own options, how it reads its arguments and what it does with a client. */
export interface OperatorCommandSpec<O extends CommandOptions, R> {
  readonly name: string;
  readonly summary: string;
  /** The full `--help` text. */
  readonly usage: string;
  readonly options: O;
  /** Checks the positionals and the command's own options; a mistake is a {@link UsageError}. */
  request(positionals: string[], values: OptionValues<O>): R;
  /** Does the work; resolves the exit code (errors it throws are reported and exit 1). */
  run(call: OperatorCall<R>): Promise<number>;
}

/**
 * A command that works on the provider `--url` (or `$QUEUE_URL`) names: it checks its arguments
 * before it opens a client, opens one that never creates queues, and always closes it. Errors are
 * one line on stderr, without the URL's secrets; a provider URL that cannot be used is bad usage.
 */
export function operatorCommand<const O extends CommandOptions, R>(spec: OperatorCommandSpec<O, R>): Command {
  return {
    name: spec.name,
    summary: spec.summary,
    /** Checks the arguments, opens the client, does the work and closes the client; never rejects. */
    async run(args, io) {
      let call: { request: R; url: string | undefined; json: boolean } | "help";
      try {
        call = readArguments(spec, args);
      } catch (error) {
        return failed(spec.name, error, io);
      }
      if (call === "help") {
        io.out(spec.usage);
        return EXIT.done;
      }
      let location: string | undefined;
      const hide = (line: string) => (location === undefined ? line : withoutSecrets(line, location));
      let client: QueueClient;
      try {
        location = operatorUrl(call.url, io.env);
        client = await openOperatorClient(location);
      } catch (error) {
        // A URL that cannot be used is a UsageError (exit 2); a store that cannot be opened, a failure (exit 1).
        return failed(spec.name, error, io, hide);
      }
      try {
        return await spec.run({ client, request: call.request, io, json: call.json });
      } catch (error) {
        return failed(spec.name, error, io, hide);
      } finally {
        await client.close().catch(() => undefined);
      }
    },
  };
}

/** The request, URL and output form the arguments give, or "help". */
function readArguments<O extends CommandOptions, R>(
  spec: OperatorCommandSpec<O, R>,
  args: readonly string[],
): { request: R; url: string | undefined; json: boolean } | "help" {
  const { values, positionals } = parseCommandArgs(args, { ...spec.options, ...OPERATOR_OPTIONS });
  const common = values as { url?: string; json: boolean; help: boolean };
  if (common.help) return "help";
  return {
    request: spec.request(positionals, values as OptionValues<O>),
    url: common.url,
    json: common.json,
  };
}
