import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CreateQueueCommand, SQSClient } from "@aws-sdk/client-sqs";
import { drain, type Measurement, report } from "./lib.js";
import { sdkWork } from "./sdk-work.js";

const MESSAGES = Number(process.env.SQS_BENCH_MESSAGES ?? 50_000);
const CLIENTS = 8;
const body = JSON.stringify({ order: 42, sku: "A-1", qty: 3 });
const here = fileURLToPath(new URL(".", import.meta.url));

interface Server {
  readonly process: ChildProcess;
  readonly endpoint: string;
}

function startServer(command: string[]): Promise<Server> {
  const child = spawn(process.execPath, command, { stdio: ["ignore", "pipe", "inherit"] });
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

/** CPU time (user + system) of a process so far, in milliseconds, from /proc. */
function cpuMsOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

async function drive(name: string, server: Server): Promise<Measurement> {
  const clients = Array.from(
    { length: CLIENTS },
    () =>
      new SQSClient({
        endpoint: server.endpoint,
        region: "us-east-1",
        credentials: { accessKeyId: "test", secretAccessKey: "test" },
      }),
  );
  const { QueueUrl } = await clients[0]!.send(new CreateQueueCommand({ QueueName: "bench" }));
  const serverCpuBefore = cpuMsOf(server.process.pid!);
  const started = performance.now();
  await drain(
    MESSAGES,
    10,
    CLIENTS,
    sdkWork(
      (worker) => clients[worker]!,
      QueueUrl!,
      Array.from({ length: 10 }, () => body),
    ),
  );
  const ms = performance.now() - started;
  const serverCpu = cpuMsOf(server.process.pid!) - serverCpuBefore;
  for (const client of clients) client.destroy();
  return { name, items: MESSAGES, ms, cpuMs: serverCpu, note: "CPU = server process" };
}

async function stop(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.process.once("exit", resolve));
  server.process.kill("SIGTERM");
  await exited;
}

/** The AWS SDK as the client, 8 at once: our server (SQLite, durable) against fauxqs (in memory). */
export async function run(): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "queue-runtime-sqs-bench-"));
  const rows: Measurement[] = [];
  try {
    for (const round of [1, 2, 3]) {
      const ours = await startServer([
        join(here, "../src/cli/main.js"),
        "serve",
        "--port",
        "0",
        "--db",
        join(directory, `bench-${round}.db`),
      ]);
      rows.push(await drive(`queue-runtime serve (SQLite file, signatures checked), round ${round}`, ours));
      await stop(ours);
      const memory = await startServer([
        join(here, "../src/cli/main.js"),
        "serve",
        "--port",
        "0",
        "--memory",
        "--no-auth",
      ]);
      rows.push(await drive(`queue-runtime serve --memory --no-auth, round ${round}`, memory));
      await stop(memory);
      const fauxqs = await startServer([join(here, "servers/fauxqs-server.js")]);
      rows.push(await drive(`fauxqs 1.9 (in memory, no signature check), round ${round}`, fauxqs));
      await stop(fauxqs);
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  const best = (prefix: string) =>
    rows.filter((row) => row.name.startsWith(prefix)).sort((a, b) => a.ms - b.ms)[0]!;
  const fauxqs = best("fauxqs");
  report(
    `SQS endpoint under the AWS SDK: send + receive + delete of ${MESSAGES.toLocaleString("en-US")} messages, batches of 10, ${CLIENTS} clients (best of 3)`,
    [best("queue-runtime serve (SQLite"), best("queue-runtime serve --memory"), fauxqs],
    fauxqs.name,
  );
  console.log(
    "\nElasticMQ's README reports about 2,600 messages/s through its SQS interface; the goal is 10x that.",
  );
}
