import { createInterface } from "node:readline/promises";
import { systemClock } from "../core/clock.js";
import type { CommandIO, StatusLine } from "./command.js";

/** The command IO of this process: its stdout, stderr and stdin, and whether each is a terminal. */
export function processIO(): CommandIO {
  // A reader that stops early (`| head -1`) closes the pipe: the rest of the output has nowhere
  // to go, which is no reason to crash with a stack trace.
  process.stdout.on("error", () => undefined);
  return {
    out: (line) => void process.stdout.write(`${line}\n`),
    err: (line) => void process.stderr.write(`${line}\n`),
    isTTY: process.stdout.isTTY === true,
    env: process.env,
    clock: systemClock,
    readInput: readStdin,
    ask: process.stdin.isTTY === true && process.stderr.isTTY === true ? askAtTerminal : undefined,
    status: process.stderr.isTTY === true ? stderrStatus : undefined,
  };
}

/** Reads stdin to its end. */
async function readStdin(): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Asks on stderr (stdout may be piped) and reads one line of answer from stdin; Ctrl-C or Ctrl-D answer nothing. */
async function askAtTerminal(question: string): Promise<string> {
  const terminal = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await new Promise<string>((resolve, reject) => {
      terminal.once("SIGINT", () => resolve(""));
      terminal.once("close", () => resolve(""));
      terminal.question(question).then(resolve, reject);
    });
  } finally {
    terminal.close();
  }
}

/** A status line redrawn in place on stderr: back to the line's start, the text, the rest of the line erased. */
const stderrStatus: StatusLine = {
  show: (line) => void process.stderr.write(`\r${line}\u001b[K`),
  clear: () => void process.stderr.write("\r\u001b[K"),
};
