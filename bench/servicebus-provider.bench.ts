import type { ServiceBusMessage } from "@azure/service-bus";
import { createClient } from "../src/index.js";
import { type DrainWork, drain, measureTimed } from "./lib.js";
import { providerWork } from "./provider-work.js";
import { stopServer } from "./servers/child-server.js";
import {
  type ServiceBusServeChild,
  serviceBusServeCommand,
  startServiceBusServeChild,
} from "./servers/servicebus-child.js";
import { serviceBusSdkClients } from "./servicebus-sdk-work.js";

const MESSAGES = Number(process.env.SERVICEBUS_PROVIDER_BENCH_MESSAGES ?? 50_000);
/** Messages each run drains before the clock starts, so the client's JIT warm-up is not what is measured. */
const WARMUP = Number(process.env.SERVICEBUS_PROVIDER_BENCH_WARMUP ?? 5_000);
const ROUNDS = Number(process.env.SERVICEBUS_PROVIDER_BENCH_ROUNDS ?? 3);
/** The contenders to run, by key (SERVICEBUS_PROVIDER_BENCH_CONTENDERS=sdk); both by default. */
const ONLY = (process.env.SERVICEBUS_PROVIDER_BENCH_CONTENDERS ?? "sdk,ours").split(",");
const WORKERS = 8;
const BATCH = 10;
/** The SDK's `maxWaitTimeInMs`, as in the servicebus suite: it also bounds its wait for the rest of a batch. */
const WAIT_MS = 100;
/** The goal: our client CPU per message at most this many times the SDK's. */
const GOAL_CPU_RATIO = 1.2;

/** One measured run of a contender. */
interface Run {
  readonly ms: number;
  readonly clientCpuMs: number;
}

/** A contender's clients of one queue, ready to drain it. */
interface Clients {
  readonly work: DrainWork;
  close(): Promise<void>;
}

/** A client library the benchmark drives against the server. */
interface Contender {
  readonly key: string;
  readonly name: string;
  connect(server: ServiceBusServeChild, queue: string): Promise<Clients>;
}

// The same JSON on the wire from both: the SDK encodes an object body as JSON in a data section.
const body = { order: 42, sku: "A-1", qty: 3 };
const sdkBatch: ServiceBusMessage[] = Array.from({ length: BATCH }, () => ({ body }));
const ourBodies: string[] = Array.from({ length: BATCH }, () => JSON.stringify(body));

const CONTENDERS: readonly Contender[] = [
  {
    key: "sdk",
    name: "@azure/service-bus 7.9.5 (one ServiceBusClient)",
    // The server creates a queue when a client first attaches to it, so the SDK needs no admin call.
    connect: async (server, queue) =>
      serviceBusSdkClients(server.endpoint, queue, {
        workers: WORKERS,
        batch: sdkBatch,
        waitMs: WAIT_MS,
        shared: true,
      }),
  },
  {
    key: "ours",
    name: "queue-runtime servicebus provider",
    async connect(server, queue) {
      const client = await createClient({
        provider: {
          type: "servicebus",
          connectionString: server.endpoint,
          administrationEndpoint: server.administrationEndpoint,
        },
      });
      await client.admin.createQueue(queue, {});
      return { work: providerWork(client, queue, ourBodies), close: () => client.close() };
    },
  },
];

/** Connects `contender` to a queue of its own, warms it up, and measures it draining {@link MESSAGES}. */
async function runOnce(contender: Contender, server: ServiceBusServeChild, round: number): Promise<Run> {
  const clients = await contender.connect(server, `${contender.key}-${round}`);
  try {
    await drain(WARMUP, BATCH, WORKERS, clients.work);
    const measured = await measureTimed(contender.name, MESSAGES, () =>
      drain(MESSAGES, BATCH, WORKERS, clients.work),
    );
    return { ms: measured.ms, clientCpuMs: measured.cpuMs ?? 0 };
  } finally {
    await clients.close();
  }
}

const rate = (run: Run): number => (MESSAGES / run.ms) * 1000;
const cpuPerMessage = (run: Run): number => (run.clientCpuMs * 1000) / MESSAGES;
const format = (value: number): string => Math.round(value).toLocaleString("en-US");

/**
 * Our servicebus provider (through `createClient`) against the `@azure/service-bus` SDK used
 * directly, as clients of the same `queue-runtime serve --servicebus --memory` (a child process,
 * so its CPU is not counted): 8 workers each sending batches of 10, receiving up to 10 in
 * peek-lock and completing each; the contenders take turns over 3 rounds, each column's best kept.
 */
export async function run(): Promise<void> {
  const unknown = ONLY.filter((key) => !CONTENDERS.some((contender) => contender.key === key));
  if (unknown.length > 0) throw new Error(`unknown contenders: ${unknown.join(", ")} (known: sdk, ours)`);
  const contenders = CONTENDERS.filter((contender) => ONLY.includes(contender.key));
  const runs: Run[][] = contenders.map(() => []);
  console.log(
    `\nservicebus-provider: ${format(MESSAGES)} messages per run (after ${format(WARMUP)} to warm each client up), ` +
      `${WORKERS} workers each sending batches of ${BATCH} and receiving up to ${BATCH} in peek-lock, completing each; ` +
      `one server for all runs; best of ${ROUNDS} rounds (each column's best on its own), the contenders taking turns in each`,
  );
  const server = await startServiceBusServeChild(serviceBusServeCommand("--memory"));
  try {
    for (let round = 0; round < ROUNDS; round++)
      for (let k = 0; k < contenders.length; k++) {
        // Rotating who goes first spreads the noise of a shared machine over all.
        const index = (round + k) % contenders.length;
        const result = await runOnce(contenders[index]!, server, round + 1);
        console.log(
          `  round ${round + 1}, ${contenders[index]!.key}: ${format(rate(result))} msg/s, client ${cpuPerMessage(result).toFixed(1)} µs/msg`,
        );
        runs[index]!.push(result);
      }
  } finally {
    await stopServer(server);
  }
  // On a shared machine a run's CPU per message swings, and not with its rate: each column keeps its own best.
  const bests: Run[] = runs.map((all) => ({
    ms: Math.min(...all.map((one) => one.ms)),
    clientCpuMs: Math.min(...all.map((one) => one.clientCpuMs)),
  }));
  const sdkIndex = contenders.findIndex((contender) => contender.key === "sdk");
  const sdk = sdkIndex < 0 ? undefined : bests[sdkIndex];
  console.log(
    `\n### Service Bus clients against queue-runtime serve --servicebus --memory: send + receive + complete of ${format(MESSAGES)} messages, batches of ${BATCH}, ${WORKERS} workers (best of ${ROUNDS}; CPU = client process)\n`,
  );
  console.log("| contender | msg/s | client CPU µs/msg | client CPU vs SDK | runs: msg/s (client µs/msg) |");
  console.log("|---|---:|---:|---:|---|");
  contenders.forEach((contender, index) => {
    const best = bests[index]!;
    const ratio = sdk === undefined ? "-" : `${(best.clientCpuMs / sdk.clientCpuMs).toFixed(2)}x`;
    const each = runs[index]!.map((one) => `${format(rate(one))} (${cpuPerMessage(one).toFixed(1)})`).join(
      ", ",
    );
    console.log(
      `| ${contender.name} | ${format(rate(best))} | ${cpuPerMessage(best).toFixed(1)} | ${ratio} | ${each} |`,
    );
  });
  const oursIndex = contenders.findIndex((contender) => contender.key === "ours");
  const ours = oursIndex < 0 ? undefined : bests[oursIndex];
  const goal = `Goal: queue-runtime's client CPU per message ≤ ${GOAL_CPU_RATIO}x the SDK's`;
  if (sdk === undefined || ours === undefined) console.log(`\n${goal}: - (needs both contenders)`);
  else {
    const ratio = ours.clientCpuMs / sdk.clientCpuMs;
    console.log(`\n${goal}: ${ratio <= GOAL_CPU_RATIO ? "met" : "NOT met"} (${ratio.toFixed(2)}x)`);
  }
}
