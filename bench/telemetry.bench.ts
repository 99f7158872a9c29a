import { bestOfRounds, type Measurement, type Runs, report } from "./lib.js";
import { type LoopProvider, sendReceiveComplete } from "./telemetry/loop.js";
import { startNoopSdk } from "./telemetry/sdk.js";

const ROUNDS = Number(process.env.TELEMETRY_BENCH_ROUNDS ?? 5);
const MESSAGES: Readonly<Record<LoopProvider, number>> = {
  memory: Number(process.env.TELEMETRY_BENCH_MEMORY ?? 50_000),
  sqlite: Number(process.env.TELEMETRY_BENCH_SQLITE ?? 10_000),
};

/** CPU µs per message of one run. */
const cpuPerMessage = (run: Measurement): number => ((run.cpuMs ?? Number.NaN) * 1000) / run.items;

/** The least CPU per message of a contender's runs (a run's CPU swings on a shared machine). */
const leastCpu = (runs: Runs): number => Math.min(...runs.all.map(cpuPerMessage));

/** The median CPU per message of a contender's runs. */
function medianCpu(runs: Runs): number {
  const sorted = runs.all.map(cpuPerMessage).sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/**
 * Issue 30's cost of telemetry: the send, receive and complete loop on memory and SQLite with
 * telemetry off, with the API but no SDK registered, and with an SDK whose exporters drop
 * everything, side by side in rounds of one process.
 */
export async function run(): Promise<void> {
  const sdk = startNoopSdk();
  try {
    for (const provider of ["memory", "sqlite"] as const) {
      const count = MESSAGES[provider];
      const contenders = [
        () => sendReceiveComplete(`${provider}, telemetry off`, provider, false, count),
        () => sendReceiveComplete(`${provider}, API without an SDK`, provider, true, count),
        () => sendReceiveComplete(`${provider}, SDK with no-op exporters`, provider, sdk.providers, count),
      ];
      const [off, api, withSdk] = (await bestOfRounds(ROUNDS, contenders)) as [Runs, Runs, Runs];
      report(
        `Telemetry on ${provider}: send, receive and complete one at a time, best of ${ROUNDS} rounds`,
        [off.best, api.best, withSdk.best],
        off.best.name,
      );
      const line = (what: string, runs: Runs) =>
        `- ${what}: CPU per message ${(leastCpu(runs) / leastCpu(off)).toFixed(2)}x off at the least of each (${leastCpu(runs).toFixed(2)} against ${leastCpu(off).toFixed(2)} µs), ${(medianCpu(runs) / medianCpu(off)).toFixed(2)}x at the medians`;
      console.log(`\n${line("API without an SDK", api)}\n${line("SDK with no-op exporters", withSdk)}`);
      const apiRatio = medianCpu(api) / medianCpu(off);
      console.log(
        `- goal, within 3% of off without an SDK: ${apiRatio <= 1.03 ? "met" : "not met"} (medians)`,
      );
      if (provider === "sqlite") {
        const sdkRatio = medianCpu(withSdk) / medianCpu(off);
        console.log(
          `- goal, at most 1.5x off's CPU with an SDK: ${sdkRatio <= 1.5 ? "met" : "not met"} (medians)`,
        );
      }
    }
  } finally {
    await sdk.shutdown();
  }
}
