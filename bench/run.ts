import { printEnvironment } from "./lib.js";

/** A benchmark suite: `npm run bench -- <name>` runs only the named ones. */
interface BenchSuite {
  readonly name: string;
  readonly run: () => Promise<void>;
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
  { name: "brokers", run: async () => (await import("./brokers.bench.js")).run() },
  { name: "topics", run: async () => (await import("./topics.bench.js")).run() },
];

const wanted = process.argv.slice(2);
printEnvironment();
for (const suite of suites) {
  if (wanted.length > 0 && !wanted.includes(suite.name)) continue;
  await suite.run();
}
