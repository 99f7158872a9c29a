import { createClient, type ProviderConfig, type QueueClient, type QueueOptions } from "../../src/index.js";
import type { Measurement } from "../lib.js";
import { fill, timedDrain } from "./ours.js";
import { BODY } from "./settings.js";

/** A server in a child process, as our provider reaches it. */
export interface Remote {
  readonly provider: ProviderConfig;
  readonly queueOptions: QueueOptions;
  /** Messages one send of the fill carries (SQS takes 10 at most). */
  readonly fillBatch: number;
}

/** Sends of the fill at once. */
const FILL_LOOPS = 8;

/**
 * A forced full GC before a run deoptimises the network clients' hot code (see guard/sqs.ts): the
 * runs against a server start warm, the fill's garbage left to every contender alike.
 */
export const WARM = { collect: false } as const;

/** A queue of its own on `remote` holding `count` messages, and the client of ours that filled it. */
export interface Filled {
  readonly client: QueueClient;
  readonly queue: string;
}

/**
 * Creates a new queue named after `who` and this process on `remote` and fills it with `count`
 * messages through our provider, before any timing: every contender's queue is filled alike.
 */
export async function filledQueue(remote: Remote, who: string, count: number): Promise<Filled> {
  const queue = `${who}-${process.pid}-${Date.now().toString(36)}`;
  const client = await createClient({ provider: remote.provider });
  await client.admin.createQueue(queue, remote.queueOptions);
  await fill(client, queue, count, BODY, remote.fillBatch, FILL_LOOPS);
  return { client, queue };
}

/** Our `client.consume` over `remote`'s provider, at `concurrency`, draining a new queue of `count` messages. */
export async function consumeRemote(
  remote: Remote,
  name: string,
  count: number,
  concurrency: number,
): Promise<Measurement> {
  const { client, queue } = await filledQueue(remote, "ours", count);
  try {
    return await timedDrain("consumer", name, client, queue, count, concurrency, WARM);
  } finally {
    await client.close();
  }
}
