// A process running one consumer, for test/consumer/processes.test.ts: killed mid-handler, or
// racing another process for the sessions of one queue.
// Usage: consumer-child.ts <consume|sessions> <queue URL> <queue> <step file>. It reports on stdout,
// one JSON object a line (ready; each "error" event; stopped with its metrics), and stops its
// consumer at the first line on standard input.
import { appendFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { createClient, type MessageHandler, type ReceivedMessage } from "../../src/index.js";
import { say, toldToGoOn } from "./queue-child.js";

const [mode, url, queue, file] = process.argv.slice(2);
if (mode !== "consume" && mode !== "sessions") throw new Error(`unknown mode ${mode}`);

/**
 * Appends `<kind> <session or -> <body> <pid> <monotonic ns>` at once: a SIGKILL may come at any
 * moment, and the order of the lines is the order in which handlers of several processes began
 * (B) and ended (E). The clock is the system's monotonic one, so it also compares across processes.
 */
function step(kind: "B" | "E", message: ReceivedMessage): void {
  const session = message.sessionId ?? "-";
  appendFileSync(file!, `${kind} ${session} ${message.text()} ${process.pid} ${process.hrtime.bigint()}\n`);
}

const handler: MessageHandler = async (message) => {
  step("B", message);
  // A few ms of work: long enough that kills land mid-handler and that a session's next message
  // run too early would overlap this one.
  await sleep(5 + Math.random() * 15);
  step("E", message);
};

const client = await createClient(url!);
const consumer =
  mode === "consume"
    ? client.consume(queue!, handler, { concurrency: 4 })
    : client.consumeSessions(queue!, handler, { maxConcurrentSessions: 4, sessionIdleTimeoutMs: 200 });
const errors: string[] = [];
consumer.on("error", (error) => {
  errors.push(error.code);
  say({ error: error.code, message: error.message });
});
say({ ready: true });
await toldToGoOn();
await consumer.stop();
say({ stopped: consumer.metrics, errors });
await client.close();
