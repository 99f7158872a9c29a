import { type ParseArgsConfig, parseArgs } from "node:util";
import { QueueError } from "../core/errors.js";
import { messageOf } from "./output.js";

/** The options a command declares, as `parseArgs` takes them. */
export type CommandOptions = NonNullable<ParseArgsConfig["options"]>;

/** A mistake in the command line itself (an unknown option, a missing argument): the command exits 2. */
export class UsageError extends QueueError {
  /** A usage error saying what is wrong with the command line. */
  constructor(message: string) {
    super("Configuration", message);
  }
}

/** How every command parses its arguments: strictly, options and positionals in any order. */
type CommandArgsConfig<T extends CommandOptions> = {
  args: string[];
  options: T;
  strict: true;
  allowPositionals: true;
};

/** Parses a command's arguments, options before or after its positionals; a mistake is a {@link UsageError}. */
export function parseCommandArgs<const T extends CommandOptions>(
  args: readonly string[],
  options: T,
): ReturnType<typeof parseArgs<CommandArgsConfig<T>>> {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: true });
  } catch (error) {
    throw argumentsError(error);
  }
}

/**
 * A `parseArgs` failure as the usage error every command words the same way: `Unknown option
 * '--colour'`, without Node's closing period or its advice on positionals that start with '-'
 * (too long for one line).
 */
export function argumentsError(error: unknown): UsageError {
  return new UsageError(
    messageOf(error)
      .replace(/\. To specify a positional argument.*$/s, "")
      .replace(/\.$/, ""),
  );
}

/** The positionals a command takes, in order, by name: a missing or an extra one is a usage error. */
export function positionalsOf<const N extends readonly string[]>(
  positionals: readonly string[],
  names: N,
): { [K in keyof N]: string } {
  const missing = names[positionals.length];
  if (missing !== undefined) throw new UsageError(`missing <${missing}>`);
  const extra = positionals[names.length];
  if (extra !== undefined) throw new UsageError(`unexpected argument ${JSON.stringify(extra)}`);
  return [...positionals] as { [K in keyof N]: string };
}

/** A whole-number option in `[min, max]`, or `undefined` when it is not given. */
export function countOption(
  flag: string,
  value: string | undefined,
  min: number,
  max: number,
): number | undefined {
  if (value === undefined) return undefined;
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < min || count > max)
    throw new UsageError(`${flag} takes a whole number from ${min} to ${max}, not ${JSON.stringify(value)}`);
  return count;
}

/** A duration option given in seconds (fractions allowed) up to `maxSeconds`, as milliseconds. */
export function secondsOption(flag: string, value: string | undefined, maxSeconds: number): number {
  if (value === undefined) return 0;
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || seconds > maxSeconds)
    throw new UsageError(`${flag} takes seconds from 0 to ${maxSeconds}, not ${JSON.stringify(value)}`);
  return Math.round(seconds * 1000);
}

/** `--attr name=value` options as attributes; the value may hold `=`, the name may not be empty. */
export function attributesOption(pairs: readonly string[] | undefined): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new UsageError(`--attr takes name=value, not ${JSON.stringify(pair)}`);
    attributes[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return attributes;
}
