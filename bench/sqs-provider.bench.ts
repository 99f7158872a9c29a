import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { CreateQueueCommand, SQSClient } from "@aws-sdk/client-sqs";
import { createClient } from "../src/index.js";
import { drain, type Measurement, measure, report } from "./lib.js";
import { providerWork } from "./provider-work.js";
import { sdkWork } from "./sdk-work.js";

const MESSAGES = Number(process.env.SQS_BENCH_MESSAGES ?? 50_000);
const ROUNDS = Number(process.env.SQS_BENCH_ROUNDS ?? 3);
const WORKERS = 8;
const BATCH = 10;
const body = JSON.stringify({ order: 42, sku: "A-1", qty: 3 });
const credentials = { accessKeyId: "test", secretAccessKey: "test" };
const here = fileURLToPath(new URL(".", import.meta.url));

interface Server {
  readonly process: ChildProcess;
  readonly endpoint: string;
}

function startServer(): Promise<Server> {
  const child = spawn(process.execPath, [`${here}../src/cli/main.js`, "serve", "--memory", "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(output);
      if (found) resolve({ process: child, endpoint: found[1]! });
    });
    child.once("exit", (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

async function stop(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.process.once("exit", resolve));
  server.process.kill("SIGTERM");
  await exited;
}

async function awsSdk(endpoint: string, round: number): Promise<Measurement> {
  const sqs = new SQSClient({ endpoint, region: "us-east-1", credentials });
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: `sdk-${round}` }));
  const bodies = Array.from({ length: BATCH }, () => body);
  const result = await measure("@aws-sdk/client-sqs 3.1175", MESSAGES, () =>
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
  const result = await measure("queue-runtime sqs provider", MESSAGES, () =>
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
  const server = await startServer();
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
    await stop(server);
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
