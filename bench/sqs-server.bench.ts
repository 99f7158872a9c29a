import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CreateQueueCommand, SQSClient } from "@aws-sdk/client-sqs";
import { createClient } from "../src/index.js";
import { type DrainWork, drain, type Measurement, report } from "./lib.js";
import { providerWork } from "./provider-work.js";
import { sdkWork } from "./sdk-work.js";
import {
  type ChildServer,
  cpuMsOf,
  SERVE_CREDENTIALS as credentials,
  serveCommand,
  startServer,
  stopServer,
} from "./servers/child-server.js";

const MESSAGES = Number(process.env.SQS_BENCH_MESSAGES ?? 50_000);
const CLIENTS = 8;
const ROUNDS = Number(process.env.SQS_BENCH_ROUNDS ?? 3);
/** Messages each fresh server handles before the clock starts: a server runs for long, so its JIT warm-up is not what is measured. */
const WARMUP = Number(process.env.SQS_BENCH_WARMUP ?? 5_000);
const body = JSON.stringify({ order: 42, sku: "A-1", qty: 3 });

/** Who drives a server: the AWS SDK (the measure), or our lighter `sqs` provider, so the server is the limit. */
type Driver = "aws-sdk" | "queue-runtime";

const bodies = Array.from({ length: 10 }, () => body);

/** Sets up `driver`'s clients against `server` and returns their drain work and how to let them go. */
async function clientsOf(
  driver: Driver,
  server: ChildServer,
): Promise<{ work: DrainWork; close(): Promise<void> }> {
  if (driver === "queue-runtime") {
    const client = await createClient({
      provider: { type: "sqs", endpoint: server.endpoint, region: "us-east-1", credentials },
    });
    await client.admin.createQueue("bench", { deadLetterQueue: null });
    return { work: providerWork(client, "bench", bodies), close: () => client.close() };
  }
  const clients = Array.from(
    { length: CLIENTS },
    () => new SQSClient({ endpoint: server.endpoint, region: "us-east-1", credentials }),
  );
  const { QueueUrl } = await clients[0]!.send(new CreateQueueCommand({ QueueName: "bench" }));
  return {
    work: sdkWork((worker) => clients[worker]!, QueueUrl!, bodies),
    close: async () => {
      for (const client of clients) client.destroy();
    },
  };
}

async function drive(name: string, server: ChildServer, driver: Driver): Promise<Measurement> {
  const clients = await clientsOf(driver, server);
  await drain(WARMUP, 10, CLIENTS, clients.work);
  const serverCpuBefore = cpuMsOf(server);
  const ms = await drain(MESSAGES, 10, CLIENTS, clients.work);
  const serverCpu = cpuMsOf(server) - serverCpuBefore;
  await clients.close();
  return { name, items: MESSAGES, ms, cpuMs: serverCpu, note: "CPU = server process" };
}

const FAUXQS = "fauxqs 1.9 (in memory, no signature check)";

const SERVERS = [
  {
    name: "queue-runtime serve (SQLite file, signatures checked)",
    command: (directory: string, run: string) => serveCommand("--db", join(directory, `bench-${run}.db`)),
  },
  {
    name: "queue-runtime serve --journal (journal file, signatures checked)",
    command: (directory: string, run: string) =>
      serveCommand("--journal", join(directory, `bench-${run}.journal`)),
  },
  {
    name: "queue-runtime serve --memory --no-auth",
    command: () => serveCommand("--memory", "--no-auth"),
  },
  {
    name: FAUXQS,
    command: () => [fileURLToPath(new URL("servers/fauxqs-server.js", import.meta.url))],
  },
  {
    name: "floor: bare Node HTTP server, an array, nothing checked or kept",
    command: () => [fileURLToPath(new URL("servers/bare-server.js", import.meta.url))],
  },
] as const;

const TITLES: Record<Driver, string> = {
  "aws-sdk": `SQS endpoint under the AWS SDK: send + receive + delete of ${MESSAGES.toLocaleString("en-US")} messages (after ${WARMUP.toLocaleString("en-US")} to warm each fresh server up), batches of 10, ${CLIENTS} clients`,
  "queue-runtime": `The same with queue-runtime's sqs provider as the client (a third to a fifth of the SDK's CPU per message), so the servers are the limit`,
};

/**
 * Our server (durable in SQLite or in a journal, signatures checked; and in memory) against fauxqs
 * and against the floor (a bare HTTP server), each in a child process of its own, driven by 8 AWS
 * SDK clients and then by our `sqs` provider, each server warmed up by {@link WARMUP} messages
 * first; best of 3 rounds.
 */
export async function run(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "queue-runtime-sqs-bench-"));
  const rows: Record<Driver, Measurement[]> = { "aws-sdk": [], "queue-runtime": [] };
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      for (const server of SERVERS) {
        for (const driver of ["aws-sdk", "queue-runtime"] as const) {
          const started = await startServer(server.command(directory, `${round}-${driver}`));
          try {
            rows[driver].push(await drive(`${server.name}, round ${round}`, started, driver));
          } finally {
            await stopServer(started);
          }
        }
      }
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  for (const driver of ["aws-sdk", "queue-runtime"] as const) {
    const best = (prefix: string) =>
      rows[driver].filter((row) => row.name.startsWith(prefix)).sort((a, b) => a.ms - b.ms)[0]!;
    const bests = SERVERS.map((server) => best(server.name));
    report(
      `${TITLES[driver]} (best of ${ROUNDS})`,
      bests,
      bests.find((row) => row.name.startsWith(FAUXQS))!.name,
    );
  }
  console.log(
    "\nElasticMQ's README reports about 2,600 messages/s through its SQS interface; the goal is 10x that.",
  );
}
