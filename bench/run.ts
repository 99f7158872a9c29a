import { printEnvironment } from "./lib.js";

/** A benchmark suite: `npm run bench -- <name> [arguments]` runs only the named one, given the arguments. */
interface BenchSuite {
  readonly name: string;
  readonly run: (args: readonly string[]) => Promise<void>;
}

const suites: BenchSuite[] = [
  { name: "memory", run: async () => (await import("./memory.bench.js")).run() },
  { name: "sqlite", run: async () => (await import("./sqlite.bench.js")).run() },
  { name: "sqs-server", run: async () => (await import("./sqs-server.bench.js")).run() },
  { name: "sqs-provider", run: async () => (await import("./sqs-provider.bench.js")).run() },
  { name: "processing", run: async () => (await import("./processing.bench.js")).run() },
  { name: "receiving", run: async () => (await import("./receiving.bench.js")).run() },
  { name: "postgres", run: async () => (await import("./postgres.bench.js")).run() },
  { name: "servicebus", run: async () => (await import("./servicebus.bench.js")).run() },
  {
    name: "servicebus-provider",
    run: async () => (await import("./servicebus-provider.bench.js")).run(),
  },
  { name: "consumer", run: async () => (await import("./consumer.bench.js")).run() },
  { name: "brokers", run: async (args) => (await import("./brokers.bench.js")).run(args) },
  { name: "topics", run: async (args) => (await import("./topics.bench.js")).run(args) },
  { name: "telemetry", run: async () => (await import("./telemetry.bench.js")).run() },
];

// `npm run bench -- <suite> [arguments]`: the first word names the suite, the words after it are
// the suite's own (`topics postgres` is the postgres part of the topics suite, not two suites).
const [wanted, ...rest] = process.argv.slice(2);
if (wanted !== undefined && !suites.some((suite) => suite.name === wanted)) {
  console.error(
    `no suite ${JSON.stringify(wanted)}; the suites: ${suites.map((suite) => suite.name).join(", ")}`,
  );
  process.exit(2);
}
printEnvironment();
for (const suite of suites) {
  if (wanted !== undefined && suite.name !== wanted) continue;
  await suite.run(rest);
}
