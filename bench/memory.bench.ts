import fastq from "fastq";
import { createClient, type QueueClient } from "../src/index.js";
import { type Contenders, isolated, type Measurement, measure, report, serveContender } from "./lib.js";

const MESSAGES = 1_000_000;
const DEPTH_OPS = 200_000;
const body = "x".repeat(64);

async function freshClient(): Promise<QueueClient> {
  return createClient({ provider: { type: "memory", lockDurationMs: 600_000 } });
}

async function oneAtATime(): Promise<Measurement> {
  const client = await freshClient();
  const result = await measure("queue-runtime memory, one at a time, backlog of 1M", MESSAGES, async () => {
    for (let i = 0; i < MESSAGES; i++) await client.sendMessage("bench", body);
    for (let i = 0; i < MESSAGES; i++) {
      const message = await client.receiveMessage("bench");
      await client.completeMessage(message!.receiptHandle);
    }
  });
  await client.close();
  return result;
}

/** Ours in the steady state of a busy queue: each batch of 10 is sent, received and completed one by one before the next. */
export async function pipelined(count = MESSAGES): Promise<Measurement> {
  const client = await freshClient();
  const batch = Array.from({ length: 10 }, () => body);
  const result = await measure("queue-runtime memory, batches of 10, pipelined", count, async () => {
    for (let i = 0; i < count; i += 10) {
      await client.sendMessages("bench", batch);
      const messages = await client.receiveMessages("bench", 10);
      for (const message of messages) await client.completeMessage(message.receiptHandle);
    }
  });
  await client.close();
  return result;
}

// A backlog: all sent first, then all received and completed (a million messages held at once).
async function inBatches(): Promise<Measurement> {
  const client = await freshClient();
  const batch = Array.from({ length: 10 }, () => body);
  const result = await measure("queue-runtime memory, batches of 10, backlog of 1M", MESSAGES, async () => {
    for (let i = 0; i < MESSAGES; i += 10) await client.sendMessages("bench", batch);
    for (let done = 0; done < MESSAGES; ) {
      const messages = await client.receiveMessages("bench", 10);
      for (const message of messages) await client.completeMessage(message.receiptHandle);
      done += messages.length;
    }
  });
  await client.close();
  return result;
}

// Receive + complete (+ one send to hold the depth) with `depth` messages waiting behind.
async function atDepth(depth: number): Promise<Measurement> {
  const client = await freshClient();
  for (let i = 0; i < depth; i += 100)
    await client.sendMessages(
      "bench",
      Array.from({ length: 100 }, () => body),
    );
  const result = await measure(
    `receive + complete at depth ${depth.toLocaleString("en-US")}`,
    DEPTH_OPS,
    async () => {
      for (let i = 0; i < DEPTH_OPS; i++) {
        await client.sendMessage("bench", body);
        const message = await client.receiveMessage("bench");
        await client.completeMessage(message!.receiptHandle);
      }
    },
  );
  await client.close();
  return result;
}

/** The floor: fastq pushing `count` items to a no-op async worker and awaiting them all. */
export async function fastqFloor(count = MESSAGES): Promise<Measurement> {
  return measure("fastq push + drain (in-process floor)", count, async () => {
    const queue = fastq.promise(async (_item: string) => undefined, 1);
    const pending: Promise<unknown>[] = [];
    for (let i = 0; i < count; i++) pending.push(queue.push(body));
    await Promise.all(pending);
  });
}

const contenders: Contenders = {
  floor: fastqFloor,
  pipelined,
  backlog: inBatches,
  single: oneAtATime,
  shallow: () => atDepth(10),
  deep: () => atDepth(1_000_000),
};

/** Send + receive + complete of one million messages through the public client, against fastq as the floor. */
export async function run(): Promise<void> {
  const best = (name: string, runs = 3) => isolated(import.meta.url, name, runs);
  const floor = await best("floor");
  const steady = await best("pipelined");
  const batched = await best("backlog");
  const single = await best("single", 2);
  report(
    "Memory provider: send + receive + complete, 1,000,000 messages",
    [floor, steady, batched, single],
    floor.name,
  );
  const shallow = await best("shallow");
  const deep = await best("deep");
  report(
    "Receive cost against queue depth (send + receive + complete per op)",
    [shallow, deep],
    shallow.name,
  );
  console.log(`\ndepth ratio (time per op at 1,000,000 / at 10): ${(deep.ms / shallow.ms).toFixed(2)}`);
}

// A no-op unless `isolated` started this very module, so importing it (as the guard does) runs nothing.
await serveContender(import.meta.url, contenders);
