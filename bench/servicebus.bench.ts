import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { ServiceBusMessage } from "@azure/service-bus";
import { drain, measureTimed } from "./lib.js";
import { cpuMsOf, stopServer } from "./servers/child-server.js";
import {
  bareAmqpCommand,
  serviceBusServeCommand,
  startServiceBusServer,
} from "./servers/servicebus-child.js";
import { serviceBusSdkClients } from "./servicebus-sdk-work.js";

const MESSAGES = Number(process.env.SERVICEBUS_BENCH_MESSAGES ?? 50_000);
/** Messages each fresh server handles before the clock starts, so its JIT warm-up is not what is measured. */
const WARMUP = Number(process.env.SERVICEBUS_BENCH_WARMUP ?? 5_000);
const ROUNDS = Number(process.env.SERVICEBUS_BENCH_ROUNDS ?? 3);
const WORKERS = 8;
const BATCH = 10;
/**
 * How long one `receiveMessages` waits: it also bounds the SDK's wait for the rest of a batch once
 * a first message came (at most 1 s), which at the end of a run is idle time on both sides.
 */
const WAIT_MS = Number(process.env.SERVICEBUS_BENCH_WAIT_MS ?? 100);
/**
 * One `ServiceBusClient` (one AMQP connection) shared by all workers, or one per worker
 * (SERVICEBUS_BENCH_CONNECTIONS=per-worker): shared loads the servers more (a higher rate, the
 * floor's by a third), as the SDK spends less per message on one connection.
 */
const SHARED = process.env.SERVICEBUS_BENCH_CONNECTIONS !== "per-worker";
/** A directory to write a `--cpu-prof` of each server child into (SERVICEBUS_BENCH_PROFILE=dir), for finding where its time goes. */
const PROFILE = process.env.SERVICEBUS_BENCH_PROFILE;
/** The contenders to run, by key (SERVICEBUS_BENCH_SERVERS=memory,floor); all by default. */
const ONLY = process.env.SERVICEBUS_BENCH_SERVERS?.split(",");
/** The goals: --memory's server CPU per message at most this many times the floor's; --db at least this rate. */
const GOAL_CPU_RATIO = 1.5;
const GOAL_DB_RATE = 10_000;
const QUEUE = "bench";

/** One measured run of a contender. */
interface Run {
  readonly ms: number;
  readonly serverCpuMs: number;
  readonly clientCpuMs: number;
}

/** A server the benchmark runs in a child process of its own. */
interface Contender {
  readonly key: string;
  readonly name: string;
  command(directory: string, run: string): string[];
}

const db = (directory: string, run: string) => join(directory, `bench-${run}.db`);

const CONTENDERS: readonly Contender[] = [
  {
    key: "memory",
    name: "queue-runtime serve --servicebus --memory (SAS checked)",
    command: () => serviceBusServeCommand("--memory"),
  },
  {
    key: "db",
    name: "queue-runtime serve --servicebus --db (SQLite file, SAS checked)",
    command: (directory, run) => serviceBusServeCommand("--db", db(directory, run)),
  },
  {
    key: "journal",
    name: "queue-runtime serve --servicebus --journal (journal file, SAS checked)",
    command: (directory, run) => serviceBusServeCommand("--journal", join(directory, `bench-${run}.journal`)),
  },
  {
    key: "floor",
    name: "floor: bare rhea server, an array, nothing checked or kept",
    command: () => bareAmqpCommand(),
  },
];

const body = { order: 42, sku: "A-1", qty: 3 };
const batch: ServiceBusMessage[] = Array.from({ length: BATCH }, () => ({ body }));

/** Starts a fresh server of `contender`, warms it up, and measures the SDK draining {@link MESSAGES} through it. */
async function runOnce(contender: Contender, directory: string, run: string): Promise<Run> {
  const profile =
    PROFILE === undefined
      ? []
      : [
          "--cpu-prof",
          "--cpu-prof-dir",
          resolve(PROFILE),
          "--cpu-prof-name",
          `${contender.key}-${run}.cpuprofile`,
        ];
  const server = await startServiceBusServer(contender.command(directory, run), profile);
  try {
    const clients = serviceBusSdkClients(server.endpoint, QUEUE, {
      workers: WORKERS,
      batch,
      waitMs: WAIT_MS,
      shared: SHARED,
    });
    try {
      await drain(WARMUP, BATCH, WORKERS, clients.work);
      const serverBefore = cpuMsOf(server);
      const measured = await measureTimed(contender.name, MESSAGES, () =>
        drain(MESSAGES, BATCH, WORKERS, clients.work),
      );
      return {
        ms: measured.ms,
        serverCpuMs: cpuMsOf(server) - serverBefore,
        clientCpuMs: measured.cpuMs ?? 0,
      };
    } finally {
      await clients.close();
    }
  } finally {
    await stopServer(server);
  }
}

const rate = (run: Run): number => (MESSAGES / run.ms) * 1000;
const perMessage = (ms: number): string => ((ms * 1000) / MESSAGES).toFixed(1);
const format = (value: number): string => Math.round(value).toLocaleString("en-US");

/** The goal a contender's row is held to, in words, and whether its best of the runs meets it. */
function goalOf(key: string, best: Run, floor: Run | undefined): string {
  if (key === "memory") {
    if (floor === undefined) return "- (no floor run)";
    const ratio = best.serverCpuMs / floor.serverCpuMs;
    return `server CPU ≤ ${GOAL_CPU_RATIO}x floor's: ${ratio <= GOAL_CPU_RATIO ? "met" : "NOT met"}`;
  }
  if (key === "db")
    return `≥ ${format(GOAL_DB_RATE)} msg/s: ${rate(best) >= GOAL_DB_RATE ? "met" : "NOT met"}`;
  return "-";
}

/**
 * Our Service Bus endpoint (in memory, on SQLite, on a journal) against the floor (a bare rhea
 * server that keeps nothing and checks nothing), each in a
 * child process of its own and fresh for every run, driven by the `@azure/service-bus` SDK: 8
 * workers each sending batches of 10 and receiving up to 10 in peek-lock and completing each; the
 * contenders take turns in each of 3 rounds, each column's best kept.
 */
export async function run(): Promise<void> {
  const contenders = CONTENDERS.filter((contender) => ONLY === undefined || ONLY.includes(contender.key));
  if (PROFILE !== undefined) mkdirSync(PROFILE, { recursive: true });
  const directory = mkdtempSync(join(tmpdir(), "queue-runtime-servicebus-bench-"));
  const runs: Run[][] = contenders.map(() => []);
  console.log(
    `\nservicebus: ${format(MESSAGES)} messages per run (after ${format(WARMUP)} to warm each fresh server up), ` +
      `${WORKERS} workers each sending batches of ${BATCH} and receiving up to ${BATCH} (maxWaitTimeInMs ${WAIT_MS}) ` +
      `in peek-lock, completing each; ${SHARED ? "one ServiceBusClient shared by all workers" : "one ServiceBusClient (connection) per worker"}; ` +
      `best of ${ROUNDS} rounds (each column's best on its own: the fastest run, the least CPU), the contenders taking turns in each`,
  );
  try {
    for (let round = 0; round < ROUNDS; round++)
      for (let k = 0; k < contenders.length; k++) {
        const index = (round + k) % contenders.length;
        const result = await runOnce(contenders[index]!, directory, `${round + 1}`);
        console.log(
          `  round ${round + 1}, ${contenders[index]!.key}: ${format(rate(result))} msg/s, server ${perMessage(result.serverCpuMs)} µs/msg, client ${perMessage(result.clientCpuMs)} µs/msg`,
        );
        runs[index]!.push(result);
      }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  // Each column's best of the runs on its own: the fastest run, the least CPU per message (on a
  // shared machine a run's CPU per message swings by a third, and not with its rate).
  const bests: Run[] = runs.map((all) => ({
    ms: Math.min(...all.map((one) => one.ms)),
    serverCpuMs: Math.min(...all.map((one) => one.serverCpuMs)),
    clientCpuMs: Math.min(...all.map((one) => one.clientCpuMs)),
  }));
  const floorIndex = contenders.findIndex((contender) => contender.key === "floor");
  const floor = floorIndex < 0 ? undefined : bests[floorIndex];
  console.log(
    `\n### Service Bus endpoint under @azure/service-bus 7.9: send + receive + complete of ${format(MESSAGES)} messages (best of ${ROUNDS})\n`,
  );
  console.log(
    "| contender | msg/s | server CPU µs/msg | client CPU µs/msg | server CPU vs floor | runs: msg/s (server µs/msg) | goal |",
  );
  console.log("|---|---:|---:|---:|---:|---|---|");
  contenders.forEach((contender, index) => {
    const best = bests[index]!;
    const ratio = floor === undefined ? "-" : `${(best.serverCpuMs / floor.serverCpuMs).toFixed(2)}x`;
    const each = runs[index]!.map((one) => `${format(rate(one))} (${perMessage(one.serverCpuMs)})`).join(
      ", ",
    );
    console.log(
      `| ${contender.name} | ${format(rate(best))} | ${perMessage(best.serverCpuMs)} | ${perMessage(best.clientCpuMs)} | ${ratio} | ${each} | ${goalOf(contender.key, best, floor)} |`,
    );
  });
  console.log(
    "\nServer CPU is the child process's (user + system, from /proc, 10 ms ticks); client CPU is this process's, where the SDK runs.",
  );
}
