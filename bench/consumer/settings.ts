/** A whole number from the environment variable `name`, or `fallback`. */
function fromEnvironment(name: string, fallback: number): number {
  const value = process.env[name];
  return value === undefined ? fallback : Number(value);
}

/** Handlers running at once, in every contest but sqs-consumer's. */
export const CONCURRENCY = 16;
/** sqs-consumer runs one receive of `batchSize` at a time, every message of it at once: ours gets as many handlers. */
export const SQS_CONCURRENCY = 10;
/** sqs-consumer's `batchSize`, as issue 27 sets it. */
export const SQS_CONSUMER_BATCH = 10;

/** The queue every contender drains (a fresh one, in a fresh client, per run). */
export const QUEUE = "bench";
/** The body of every message: small JSON, as the other suites send. */
export const BODY = JSON.stringify({ order: 42, sku: "A-1", qty: 3 });

/** Messages each contender drains per run, by what it drains. */
export const MESSAGES = {
  /** Issue 27's size for the memory throughput goal; the memory floor drains as many. */
  memory: fromEnvironment("CONSUMER_BENCH_MEMORY_MESSAGES", 200_000),
  sqlite: fromEnvironment("CONSUMER_BENCH_SQLITE_MESSAGES", 40_000),
  postgres: fromEnvironment("CONSUMER_BENCH_POSTGRES_MESSAGES", 10_000),
  /** BullMQ moves a few thousand jobs a second here: fewer, compared by rate. */
  bullmq: fromEnvironment("CONSUMER_BENCH_BULLMQ_MESSAGES", 10_000),
  /** pg-boss 10's workers poll every 0.5 s at the most often: 16 of them take about 6 s for these. */
  pgboss: fromEnvironment("CONSUMER_BENCH_PGBOSS_MESSAGES", 192),
  /** sqs-consumer deletes one message a request: about 1,000 a second here. */
  sqs: fromEnvironment("CONSUMER_BENCH_SQS_MESSAGES", 4_000),
  servicebus: fromEnvironment("CONSUMER_BENCH_SERVICEBUS_MESSAGES", 10_000),
} as const;

/** Alternating rounds of each contest (each contender's best kept). */
export const ROUNDS = fromEnvironment("CONSUMER_BENCH_ROUNDS", 3);
/** Runs of a contender in its process: the first warms its JIT up, the best is kept. */
export const RUNS_PER_PROCESS = 2;
