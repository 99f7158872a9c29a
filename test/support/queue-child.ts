// What a child process of the multi-process tests does with its client, whichever provider the
// client is on: each mode reports on stdout, one JSON object a line, and some wait for a line on
// standard input. A child script makes its client and hands it to `runQueueChild`.
import { appendFileSync } from "node:fs";
import { type QueueClient, QueueError, type ReceivedMessage } from "../../src/index.js";

/** One mode of a child: what it does with the client and the rest of its command line. */
export type ChildMode = (client: QueueClient, args: readonly string[]) => Promise<void>;

/** Reports one event to the test, as a JSON line on stdout. */
export function say(event: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(event)}\n`);
}

/** Waits for a line on standard input, then closes it so that it no longer keeps the process alive. */
export function toldToGoOn(): Promise<void> {
  return new Promise((resolve) =>
    process.stdin.once("data", () => {
      process.stdin.destroy();
      resolve();
    }),
  );
}

/** The code of a QueueError, or the text of anything else. */
function codeOf(error: unknown): string {
  return QueueError.is(error) ? error.code : String(error);
}

/**
 * Sends, receives and completes on `queue` until told to stop, writing each step to the ledger
 * file once it is done (S sent, R received, c about to complete, C completed, F the complete
 * failed). A SIGKILL may come at any moment, so each line is appended at once.
 */
async function ledger(client: QueueClient, [file, worker, queue]: readonly string[]): Promise<void> {
  const log = (line: string) => appendFileSync(file!, `${line}\n`);
  let stopping = false;
  void toldToGoOn().then(() => {
    stopping = true;
  });
  say({ ready: true });
  for (let round = 0; !stopping; round++) {
    const keys = Array.from({ length: 5 }, (_, i) => `${worker}-${round}-${i}`);
    // The key as deduplication id: a send repeated after its connection was cut at its commit is not stored twice.
    await client.sendMessages(
      queue!,
      keys.map((key) => ({ body: key, deduplicationId: key })),
    );
    log(keys.map((key) => `S ${key}`).join("\n"));
    const received = await client.receiveMessages(queue!, 5);
    for (const message of received) {
      log(`R ${message.text()} ${message.deliveryCount}`);
      // One in five is left on its first delivery: it must come again once its lock ends.
      if (message.deliveryCount === 1 && message.text().endsWith("-0")) continue;
      log(`c ${message.text()}`);
      try {
        await client.completeMessage(message.receiptHandle);
        log(`C ${message.text()}`);
      } catch (error) {
        // Its lock ended first (it comes again), or a cut came after its commit (it is gone): the test allows both.
        log(`F ${message.text()} ${codeOf(error)}`);
      }
    }
  }
  say({ stopped: client.metrics });
}

/** What a drain does with each message it receives. */
export type MessageHandler = (client: QueueClient, message: ReceivedMessage) => Promise<void>;

/** A drain's handler unless told otherwise: completes the message. */
const complete: MessageHandler = (client, message) => client.completeMessage(message.receiptHandle);

/**
 * Receives from `queue`, `batch` at a time, handing each message to `handle`, until it has
 * `limit` messages or the queue stays empty for three waits of 200 ms; reports the bodies.
 */
export async function drain(
  client: QueueClient,
  queue: string,
  limit: number,
  batch = 10,
  handle: MessageHandler = complete,
): Promise<void> {
  say({ ready: true });
  // Drainers start when told, so two of them start together; each stops at `limit`, so however
  // fast one of them is, the others get the rest.
  await toldToGoOn();
  const keys: string[] = [];
  for (let idle = 0; idle < 3 && keys.length < limit; ) {
    const received = await client.receiveMessages(queue, Math.min(batch, limit - keys.length), 200);
    if (received.length === 0) {
      idle++;
      continue;
    }
    idle = 0;
    for (const message of received) {
      keys.push(message.text());
      await handle(client, message);
    }
  }
  say({ keys });
}

/** Holds session `sessionId` of `queue` until told to let it go. */
async function holdSession(client: QueueClient, [queue, sessionId]: readonly string[]): Promise<void> {
  const session = await client.acceptSession(queue!, sessionId!);
  say({ held: session.sessionId });
  await toldToGoOn();
  await session.closeSession();
  say({ closed: true });
}

/** Accepts session `sessionId` of `queue` (the next free one when empty), reporting it or the error's code. */
async function accept(client: QueueClient, [queue, sessionId]: readonly string[]): Promise<void> {
  try {
    const session = await client.acceptSession(queue!, sessionId || undefined, 2_000);
    say({ accepted: session.sessionId });
    await toldToGoOn();
  } catch (error) {
    say({ error: codeOf(error) });
  }
}

/** Waits for a message on `queue`, `rounds` times, reporting when each came (this machine's clock). */
async function wait(client: QueueClient, [queue, rounds]: readonly string[]): Promise<void> {
  say({ ready: true });
  for (let round = 0; round < Number(rounds ?? 1); round++) {
    say({ waiting: round });
    const message = await client.receiveMessage(queue!, 10_000);
    say({ receivedAt: Date.now(), body: message?.text() ?? null });
    if (message !== null) await client.completeMessage(message.receiptHandle);
  }
}

/** Waits on every queue named at once, reporting when each one's message came (this machine's clock). */
async function waitOnEach(client: QueueClient, queues: readonly string[]): Promise<void> {
  say({ ready: true });
  await Promise.all(
    queues.map(async (queue) => {
      const message = await client.receiveMessage(queue, 10_000);
      say({ receivedAt: Date.now(), queue, body: message?.text() ?? null });
    }),
  );
}

/** Sends `count` messages to `queue` five at a time, reporting how many sends failed. */
async function send(client: QueueClient, [queue, worker, count]: readonly string[]): Promise<void> {
  say({ ready: true });
  let errors = 0;
  for (let i = 0; i < Number(count); i += 5) {
    const keys = Array.from({ length: Math.min(5, Number(count) - i) }, (_, j) => `${worker}-${i + j}`);
    try {
      await client.sendMessages(queue!, keys);
    } catch (error) {
      errors++;
      say({ error: codeOf(error) });
    }
  }
  say({ done: true, errors });
}

/** The modes every child script has. */
export const QUEUE_CHILD_MODES: Readonly<Record<string, ChildMode>> = {
  ledger,
  drain: (client, [queue, limit]) => drain(client, queue!, Number(limit ?? Number.POSITIVE_INFINITY)),
  "hold-session": holdSession,
  accept,
  wait,
  "wait-on-each": waitOnEach,
  send,
};

/** Runs `mode` of `modes` with `args`, then closes the client. */
export async function runQueueChild(
  client: QueueClient,
  modes: Readonly<Record<string, ChildMode>>,
  mode: string | undefined,
  args: readonly string[],
): Promise<void> {
  const run = mode === undefined ? undefined : modes[mode];
  if (run === undefined) throw new Error(`unknown mode ${mode}`);
  await run(client, args);
  await client.close();
}
