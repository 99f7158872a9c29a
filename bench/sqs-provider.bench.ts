import { CreateQueueCommand, SQSClient } from "@aws-sdk/client-sqs";
import { createClient } from "../src/index.js";
import { drain, type Measurement, measureTimed, report } from "./lib.js";
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

async function awsSdk(endpoint: string, round: number): Promise<Measurement> {
  const sqs = new SQSClient({ endpoint, region: "us-east-1", credentials });
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `sdk-${round}` }));
  const bodies = Array.from({ length: BATCH }, () => body);
  const result = await measureTimed("@aws-sdk/client-sqs 3.1175", MESSAGES, () =>
    drain(
      MESSAGES,
      BATCH,
      WORKERS,
      sdkWork(() => sqs, QueueUrl!, bodies),
    ),
  );
  sqs.destroy();
  return result;
}

async function queueRuntime(endpoint: string, round: number): Promise<Measurement> {
  const client = await createClient({
    provider: { type: "sqs", endpoint, region: "us-east-1", credentials },
  });
  const queue = `ours-${round}`;
  await client.admin.createQueue(queue, { deadLetterQueue: null });
  const bodies = Array.from({ length: BATCH }, () => body);
  const result = await measureTimed("queue-runtime sqs provider", MESSAGES, () =>
    drain(MESSAGES, BATCH, WORKERS, providerWork(client, queue, bodies)),
  );
  await client.close();
  return result;
}

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
