import { type Contenders, isolated, serveContender } from "../lib.js";
import type { Contest } from "./ratio.js";

/** Items per timed run: each lasts about 150-400 ms on a quiet 2-core machine, fastq's floor longer. */
const ITEMS = {
  memory: 150_000,
  /** fastq's rate falls as its backlog grows (every pending promise is live to the young generation): fewer than memory.bench's 1,000,000 make a faster floor. */
  fastq: 200_000,
  sqlite: 10_000,
  processing: 3_000_000,
  receiving: 3_000,
  consumer: 50_000,
} as const;
/** processing.bench's headline shape: a started queue under steady load ticks every 1,000 adds. */
const TICK_EVERY = 1_000;
/** Runs of a contender in its process: the first warms its JIT up, the best is kept. */
const RUNS_PER_PROCESS = 2;

// Each contender imports only its suite: loading them all (bullmq, pg-boss, zod…) adds ~0.35 s to every process.
const memory = () => import("../memory.bench.js");
const processing = () => import("../processing.bench.js");
const receiving = () => import("../receiving.bench.js");
const sqlite = () => import("../sqlite.bench.js");
const consumer = () => import("../consumer/local.js");

const contenders = {
  memory: async () => (await memory()).pipelined(ITEMS.memory),
  fastq: async () => (await memory()).fastqFloor(ITEMS.fastq),
  sqlite: async () => (await sqlite()).ours(10, "NORMAL", ITEMS.sqlite),
  "sqlite-floor": async () => (await sqlite()).betterSqliteFloor(ITEMS.sqlite),
  processing: async () => (await processing()).messageQueueCallbacks(TICK_EVERY, ITEMS.processing),
  "fastq-callbacks": async () => (await processing()).fastqCallbacks(ITEMS.processing),
  receiving: async () => (await receiving()).sqliteReceiver(ITEMS.receiving),
  "receiving-floor": async () => (await receiving()).sqliteFloor(ITEMS.receiving),
  consumer: async () => (await consumer()).drainLocal("memory", "consumer", ITEMS.consumer),
  "consumer-floor": async () => (await consumer()).drainLocal("memory", "hand loop", ITEMS.consumer),
} satisfies Contenders;

/** The name of a contender run in a process of its own. */
export type ContenderName = keyof typeof contenders;

/**
 * Two contenders each run in a fresh process per round, so neither's garbage nor the JIT's
 * feedback from another provider's code (the engine is shared by memory and SQLite) bills the other.
 */
export function inProcesses(ours: ContenderName, floor: ContenderName): () => Promise<Contest> {
  const run = (name: ContenderName) => () => isolated(import.meta.url, name, RUNS_PER_PROCESS);
  return async () => ({ ours: run(ours), floor: run(floor) });
}

await serveContender(import.meta.url, contenders);
