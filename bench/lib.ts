import { fork } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** One measured contender of a benchmark. */
export interface Measurement {
  /** What ran, as shown in the table. */
  name: string;
  /** Items processed. */
  items: number;
  /** Wall time in milliseconds. */
  ms: number;
  /** CPU time of this process (user + system) in milliseconds, when measured. */
  cpuMs?: number;
  /** Anything else worth a column. */
  note?: string;
}

/** Runs `work` once and measures its wall and CPU time. */
export function measure(
  name: string,
  items: number,
  work: () => Promise<unknown> | unknown,
): Promise<Measurement> {
  return measureTimed(name, items, async () => {
    const started = performance.now();
    await work();
    return performance.now() - started;
  });
}

/** How {@link measureTimed} starts a run. */
export interface TimedOptions {
  /**
   * Start from a collected heap (when the process allows it), so a setup's garbage is not billed
   * to the work; true by default. A forced full collection also throws away the optimised code
   * that refers to objects it frees, so a run that must start warm passes false.
   */
  readonly collect?: boolean;
}

/** Runs `work`, which resolves with its own time in ms (a {@link drain}'s), and measures its CPU time. */
export async function measureTimed(
  name: string,
  items: number,
  work: () => Promise<number>,
  { collect = true }: TimedOptions = {},
): Promise<Measurement> {
  if (collect) (globalThis as { gc?: () => void }).gc?.();
  const cpuBefore = process.cpuUsage();
  const ms = await work();
  const cpu = process.cpuUsage(cpuBefore);
  return { name, items, ms, cpuMs: (cpu.user + cpu.system) / 1000 };
}

/** A file's path in a temporary directory of its own, and how to remove the directory with all written there. */
export interface TemporaryFile {
  readonly path: string;
  readonly remove: () => void;
}

/** A path named `name` in a new temporary directory (SQLite's -wal and -shm files land beside it). */
export function temporaryFile(name: string): TemporaryFile {
  const directory = mkdtempSync(join(tmpdir(), "queue-runtime-bench-"));
  return { path: join(directory, name), remove: () => rmSync(directory, { recursive: true, force: true }) };
}

/** The best (fastest) of `runs` measurements, to damp the noise of a shared machine. */
export async function bestOf(runs: number, run: () => Promise<Measurement>): Promise<Measurement> {
  let best: Measurement | undefined;
  for (let i = 0; i < runs; i++) {
    const result = await run();
    if (best === undefined || result.ms < best.ms) best = result;
  }
  return best!;
}

/** Items per second of a measurement. */
export const rate = (m: Measurement): number => (m.items / m.ms) * 1000;

/** A whole number with thousands separators, as the tables show it. */
export function formatNumber(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

/** A contender's fastest run, and every run of it (how noisy the machine was). */
export interface Runs {
  readonly best: Measurement;
  readonly all: readonly Measurement[];
}

/**
 * Runs each contender `rounds` times, one after the other in each round (each round starting with
 * the next contender), and keeps each one's fastest run as `bestOf` does: on a shared
 * machine the noise of a moment (a busy disk, another process's CPU) then hits every contender.
 */
export async function bestOfRounds(
  rounds: number,
  contenders: readonly (() => Promise<Measurement>)[],
): Promise<Runs[]> {
  const all: Measurement[][] = contenders.map(() => []);
  for (let round = 0; round < rounds; round++)
    for (let k = 0; k < contenders.length; k++) {
      const index = (round + k) % contenders.length;
      all[index]!.push(await contenders[index]!());
    }
  return all.map((runs) => ({
    best: runs.reduce((best, run) => (run.ms < best.ms ? run : best)),
    all: runs,
  }));
}

/** Prints a table of measurements with their rates and their ratio to `baseline` (a row name). */
export function report(title: string, rows: Measurement[], baseline?: string): void {
  const base = rows.find((row) => row.name === baseline);
  console.log(`\n### ${title}\n`);
  console.log(`| contender | items | time (ms) | items/s | CPU µs/item | vs ${baseline ?? "-"} |`);
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const row of rows) {
    const ratio = base ? `${(rate(row) / rate(base)).toFixed(2)}x` : "-";
    const cpu = row.cpuMs === undefined ? "-" : ((row.cpuMs * 1000) / row.items).toFixed(2);
    console.log(
      `| ${row.name}${row.note ? ` (${row.note})` : ""} | ${formatNumber(row.items)} | ${formatNumber(row.ms)} | ${formatNumber(rate(row))} | ${cpu} | ${ratio} |`,
    );
  }
}

/** Prints where and when the benchmark ran. */
export function printEnvironment(): void {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  console.log(
    `# queue-runtime benchmarks\n\nNode ${process.version}, ${cpus().length} × ${cpu}, ${new Date().toISOString()}`,
  );
}

/** A contender a benchmark can run in a process of its own, by name. */
export type Contenders = Readonly<Record<string, () => Promise<Measurement>>>;

const CONTENDER_FLAG = "--contender";

/**
 * Runs the named contender in a fresh Node process of the benchmark module `moduleUrl`, `runs`
 * times there, and returns its best run: each contender starts from a clean heap and warms its
 * own JIT, so one's garbage or deoptimisations do not bill another.
 */
export async function isolated(moduleUrl: string, name: string, runs: number): Promise<Measurement> {
  const child = fork(fileURLToPath(moduleUrl), [CONTENDER_FLAG, name, String(runs)], {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    execArgv: ["--expose-gc"],
  });
  const exited = once(child, "exit");
  // A contender that crashes ends the benchmark with its exit code instead of leaving it waiting.
  const measurement = await new Promise<Measurement>((resolve, reject) => {
    child.once("message", (message) => resolve(message as Measurement));
    void exited.then(([code]) =>
      reject(new Error(`contender ${name} ended (exit ${code}) without a measurement`)),
    );
  });
  await exited;
  return measurement;
}

/** When this process was started by `isolated`, runs the contender asked for and reports it; else does nothing. */
export async function serveContender(moduleUrl: string, contenders: Contenders): Promise<void> {
  const [flag, name, runs] = process.argv.slice(2);
  if (flag !== CONTENDER_FLAG || process.argv[1] !== fileURLToPath(moduleUrl)) return;
  const contender = contenders[name ?? ""];
  if (contender === undefined) throw new Error(`no contender named ${name}`);
  const best = await bestOf(Number(runs), contender);
  process.send?.(best);
  process.disconnect?.();
}

/** What each worker of {@link drain} does. */
export interface DrainWork {
  /** Sends one batch. */
  send(worker: number): Promise<unknown>;
  /** Receives up to a batch and settles what came; `allSent` says a receive may now wait. Returns how many it settled. */
  receiveAndSettle(worker: number, allSent: boolean): Promise<number>;
}

/**
 * The shape of the queue benchmarks: each of `workers` loops sends a batch while there is more
 * to send, then receives and settles up to a batch, until `total` messages are settled. Resolves
 * with the milliseconds from the start until the last message was settled: receives still waiting
 * then (long polls of an empty queue, up to their whole wait) are let finish but not counted.
 */
export async function drain(total: number, batch: number, workers: number, work: DrainWork): Promise<number> {
  const started = performance.now();
  let settledAt: number | undefined;
  let sent = 0;
  let settled = 0;
  const worker = async (index: number) => {
    while (settled < total) {
      if (sent < total) {
        sent += batch;
        await work.send(index);
      }
      // Read after the await: `settled += await ...` would add to a stale count and lose other workers' updates.
      const got = await work.receiveAndSettle(index, sent >= total);
      settled += got;
      if (settled >= total) settledAt ??= performance.now();
    }
  };
  await Promise.all(Array.from({ length: workers }, (_, index) => worker(index)));
  return (settledAt ?? performance.now()) - started;
}
