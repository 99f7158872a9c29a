import { CreateQueueCommand, SQSClient } from "@aws-sdk/client-sqs";
import { createClient } from "../src/index.js";
import { type DrainWork, drain, type Measurement, measureTimed, report } from "./lib.js";
import { providerWork } from "./provider-work.js";
import { sdkWork } from "./sdk-work.js";
import {
  SERVE_CREDENTIALS as credentials,
  serveCommand,
  startServer,
  stopServer,
} from "./servers/child-server.js";

const MESSAGES = Number(process.env.SQS_BENCH_MESSAGES ?? 50_000);
const ROUNDS = Number(process.env.SQS_BENCH_ROUNDS ?? 3);
const WORKERS = 8;
const BATCH = 10;
const body = JSON.stringify({ order: 42, sku: "A-1", qty: 3 });
const bodies = Array.from({ length: BATCH }, () => body);

/** A client's side of the contest: the work of {@link drain} on a queue of its own, and how to let the client go. */
export interface SqsSide {
  readonly work: DrainWork;
  readonly close: () => Promise<void>;
}

/** The AWS SDK's side, on a new queue `queue` of the server at `endpoint`. */
export async function sdkSide(endpoint: string, queue: string): Promise<SqsSide> {
  const sqs = new SQSClient({ endpoint, region: "us-east-1", credentials });
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: queue }));
  return { work: sdkWork(() => sqs, QueueUrl!, bodies), close: async () => sqs.destroy() };
}

/** Our sqs provider's side, on a new queue `queue` of the server at `endpoint`. */
export async function providerSide(endpoint: string, queue: string): Promise<SqsSide> {
  const client = await createClient({
    provider: { type: "sqs", endpoint, region: "us-east-1", credentials },
  });
  await client.admin.createQueue(queue, { deadLetterQueue: null });
  return { work: providerWork(client, queue, bodies), close: () => client.close() };
}

/** Sends, receives and deletes `count` messages through `side` ({@link WORKERS} workers, batches of {@link BATCH}); resolves with the ms until the last delete. */
export function drainSide(side: SqsSide, count: number): Promise<number> {
  return drain(count, BATCH, WORKERS, side.work);
}

/** Times `MESSAGES` messages through a fresh side, closed afterwards. */
async function timed(name: string, side: Promise<SqsSide>): Promise<Measurement> {
  const opened = await side;
  try {
    return await measureTimed(name, MESSAGES, () => drainSide(opened, MESSAGES));
  } finally {
    await opened.close();
  }
}

const awsSdk = (endpoint: string, round: number) =>
  timed("@aws-sdk/client-sqs 3.1175", sdkSide(endpoint, `sdk-${round}`));

const queueRuntime = (endpoint: string, round: number) =>
  timed("queue-runtime sqs provider", providerSide(endpoint, `ours-${round}`));

const perMessage = (row: Measurement): number => ((row.cpuMs ?? 0) * 1000) / row.items;

/**
 * Our SQS provider against the AWS SDK as the client of the same `queue-runtime serve --memory`
 * (a child process, so its CPU is not counted): send + receive + delete of 50 000 messages in
 * batches of 10, 8 concurrent workers, best of 3 rounds; CPU is this (client) process's.
 */
export async function run(): Promise<void> {
  const server = await startServer(serveCommand("--memory"));
  const sdkRuns: Measurement[] = [];
  const ourRuns: Measurement[] = [];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      // Alternating who goes first spreads the noise of a shared machine over both.
      if (round % 2 === 1) {
        sdkRuns.push(await awsSdk(server.endpoint, round));
        ourRuns.push(await queueRuntime(server.endpoint, round));
      } else {
        ourRuns.push(await queueRuntime(server.endpoint, round));
        sdkRuns.push(await awsSdk(server.endpoint, round));
      }
    }
  } finally {
    await stopServer(server);
  }
  const fastest = (runs: Measurement[]) => [...runs].sort((a, b) => a.ms - b.ms)[0]!;
  const leanest = (runs: Measurement[]) => Math.min(...runs.map(perMessage));
  const sdk = fastest(sdkRuns);
  report(
    `SQS clients against queue-runtime serve --memory: send + receive + delete of ${MESSAGES.toLocaleString("en-US")} messages, batches of ${BATCH}, ${WORKERS} workers (fastest of ${ROUNDS}; CPU = client process)`,
    [sdk, fastest(ourRuns)],
    sdk.name,
  );
  const sdkCpu = leanest(sdkRuns);
  const ourCpu = leanest(ourRuns);
  console.log(
    `\nClient CPU per message (least of ${ROUNDS}): AWS SDK ${sdkCpu.toFixed(2)} µs, queue-runtime ${ourCpu.toFixed(2)} µs: ${(sdkCpu / ourCpu).toFixed(2)}x less.`,
  );
}
