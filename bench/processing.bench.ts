import fastq from "fastq";
import PQueue from "p-queue";
import { MessageQueue, MessageQueueResult } from "../src/processing/index.js";
import { bestOf, type Measurement, measure, report } from "./lib.js";

const MESSAGES = 1_000_000;
const RUNS = 3;
const message = { id: 1 };

function expectAll(name: string, done: number): void {
  if (done !== MESSAGES) throw new Error(`${name} completed ${done} of ${MESSAGES} messages`);
}

// Callback style: the processor completes at once and a completion callback counts. `tickEvery`
// is how many messages are added between two ticks, as a started queue would see under load.
function messageQueueCallbacks(tickEvery: number): Promise<Measurement> {
  const shape =
    tickEvery >= MESSAGES ? "one tick for all" : `a tick every ${tickEvery.toLocaleString("en-US")} adds`;
  return measure(`MessageQueue add + complete, ${shape}`, MESSAGES, () => {
    let done = 0;
    const onCompleted = () => {
      done++;
    };
    const queue = new MessageQueue<typeof message>({
      onProcessMessage: (_message, complete) => complete(MessageQueueResult.Success),
    });
    for (let i = 1; i <= MESSAGES; i++) {
      queue.add(message, onCompleted);
      if (i % tickEvery === 0) queue.doWork();
    }
    queue.doWork();
    expectAll("MessageQueue", done);
  });
}

function fastqCallbacks(): Promise<Measurement> {
  return measure("fastq push + worker callback", MESSAGES, async () => {
    let done = 0;
    await new Promise<void>((resolve) => {
      const onDone = () => {
        if (++done === MESSAGES) resolve();
      };
      const queue = fastq((_item: typeof message, callback: fastq.done) => callback(null), MESSAGES);
      for (let i = 0; i < MESSAGES; i++) queue.push(message, onDone);
    });
    expectAll("fastq", done);
  });
}

// Promise style: an async no-op processor, and a Promise per message for its outcome.
function messageQueuePromises(): Promise<Measurement> {
  return measure("MessageQueue addAsync + async processor", MESSAGES, async () => {
    const queue = new MessageQueue<typeof message>({ onProcessMessage: async () => undefined });
    const outcomes: Promise<unknown>[] = new Array(MESSAGES);
    for (let i = 0; i < MESSAGES; i++) outcomes[i] = queue.addAsync(message);
    queue.doWork();
    const results = await Promise.all(outcomes);
    expectAll("MessageQueue", results.length);
  });
}

function fastqPromises(): Promise<Measurement> {
  return measure("fastq.promise push + async worker", MESSAGES, async () => {
    const queue = fastq.promise(async (_item: typeof message) => undefined, MESSAGES);
    const outcomes: Promise<unknown>[] = new Array(MESSAGES);
    for (let i = 0; i < MESSAGES; i++) outcomes[i] = queue.push(message);
    const results = await Promise.all(outcomes);
    expectAll("fastq.promise", results.length);
  });
}

function pQueuePromises(): Promise<Measurement> {
  return measure("p-queue add + async task", MESSAGES, async () => {
    const queue = new PQueue({ concurrency: Number.POSITIVE_INFINITY });
    const task = async () => undefined;
    const outcomes: Promise<unknown>[] = new Array(MESSAGES);
    for (let i = 0; i < MESSAGES; i++) outcomes[i] = queue.add(task);
    const results = await Promise.all(outcomes);
    expectAll("p-queue", results.length);
  });
}

/** One million no-op messages through MessageQueue, fastq and p-queue, with fastq as the baseline. */
export async function run(): Promise<void> {
  const callbackRows = [
    await bestOf(RUNS, fastqCallbacks),
    await bestOf(RUNS, () => messageQueueCallbacks(1_000)),
    await bestOf(RUNS, () => messageQueueCallbacks(MESSAGES)),
  ];
  const promiseRows = [await bestOf(RUNS, fastqPromises), await bestOf(RUNS, messageQueuePromises)];
  // p-queue is two orders of magnitude slower and leaves the heap full of garbage:
  // measured once, last, and shown in both tables.
  const pQueue = await pQueuePromises();
  report(
    "Processing queue, callback style: 1,000,000 no-op messages",
    [...callbackRows, pQueue],
    "fastq push + worker callback",
  );
  report(
    "Processing queue, promise style: 1,000,000 no-op messages",
    [...promiseRows, pQueue],
    "fastq.promise push + async worker",
  );
}
