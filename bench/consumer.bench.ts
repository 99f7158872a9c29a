import { type ConsumerContender, inProcess, shareServers } from "./consumer/contenders.js";
import {
  cpuAtMost,
  cpuPerMessage,
  type Figures,
  figuresOf,
  type Goal,
  goalLine,
  rateAtLeast,
  rateOver,
} from "./consumer/goals.js";
import { CONCURRENCY, MESSAGES, ROUNDS, RUNS_PER_PROCESS, SQS_CONCURRENCY } from "./consumer/settings.js";
import { bestOfRounds, formatNumber, rate, report } from "./lib.js";
import { serveCommand, startServer, stopServer } from "./servers/child-server.js";
import { serviceBusServeCommand, startServiceBusServeChild } from "./servers/servicebus-child.js";

/** Issue 27: the consumer's CPU per message at most this many times its hand loop's. */
const GOAL_FLOOR_CPU = 1.15;
const GOAL_MEMORY_RATE = 200_000;
const GOAL_TIMES_BULLMQ = 5;
const GOAL_TIMES_PGBOSS = 2;

/** A contender of a contest, and how many runs its process makes (the first warms it up). */
interface Entry {
  readonly key: ConsumerContender;
  readonly runs?: number;
}

/**
 * Runs `entries` in fresh processes over {@link ROUNDS} alternating rounds, prints their best runs
 * (ratios to the first) and every run, and returns each one's figures.
 */
async function contest(title: string, entries: readonly Entry[]): Promise<Figures[]> {
  const runs = await bestOfRounds(
    ROUNDS,
    entries.map((entry) => () => inProcess(entry.key, entry.runs)),
  );
  const bests = runs.map((one) => one.best);
  report(title, bests, bests[0]!.name);
  console.log("\nEach run, msg/s (CPU µs/msg):");
  entries.forEach((entry, index) => {
    const each = runs[index]!.all.map(
      (run) => `${formatNumber(rate(run))} (${cpuPerMessage(run).toFixed(2)})`,
    );
    console.log(`- ${entry.key}: ${each.join(", ")}`);
  });
  return runs.map(figuresOf);
}

/** Prints `goals` under their contest, and keeps them for the summary. */
function judged(goals: Goal[], all: Goal[]): void {
  console.log("");
  for (const goal of goals) console.log(goalLine(goal));
  all.push(...goals);
}

const floorGoal = (provider: string, ours: Figures, floor: Figures): Goal =>
  cpuAtMost(
    `${provider}: consumer CPU/msg ≤ ${GOAL_FLOOR_CPU}x its hand loop's`,
    ours,
    floor,
    GOAL_FLOOR_CPU,
  );

/** The consumer against its hand loop on memory, sqlite and postgres; BullMQ and pg-boss beside the last two. */
async function localContests(goals: Goal[]): Promise<void> {
  const [memoryFloor, memory] = await contest(
    `memory: drain ${formatNumber(MESSAGES.memory)} messages, no-op handler, concurrency ${CONCURRENCY}`,
    [{ key: "memory-floor" }, { key: "memory-consumer" }],
  );
  judged(
    [
      floorGoal("memory", memory!, memoryFloor!),
      rateOver(`memory: consumer ≥ ${formatNumber(GOAL_MEMORY_RATE)} msg/s`, memory!, GOAL_MEMORY_RATE),
    ],
    goals,
  );
  const [sqliteFloor, sqlite, bullmq] = await contest(
    `sqlite: drain ${formatNumber(MESSAGES.sqlite)} messages (BullMQ ${formatNumber(MESSAGES.bullmq)} jobs on Redis), no-op handler, concurrency ${CONCURRENCY}`,
    [{ key: "sqlite-floor" }, { key: "sqlite-consumer" }, { key: "bullmq" }],
  );
  judged(
    [
      floorGoal("sqlite", sqlite!, sqliteFloor!),
      rateAtLeast(
        `sqlite consumer ≥ ${GOAL_TIMES_BULLMQ}x BullMQ's Worker`,
        sqlite!,
        bullmq!,
        GOAL_TIMES_BULLMQ,
      ),
    ],
    goals,
  );
  const [postgresFloor, postgres, pgboss] = await contest(
    `postgres: drain ${formatNumber(MESSAGES.postgres)} messages (pg-boss ${formatNumber(MESSAGES.pgboss)} jobs), no-op handler, concurrency ${CONCURRENCY}`,
    // pg-boss's pace is its polling interval's: one run a process is enough, and a second would double its time.
    [{ key: "postgres-floor" }, { key: "postgres-consumer" }, { key: "pgboss", runs: 1 }],
  );
  judged(
    [
      floorGoal("postgres", postgres!, postgresFloor!),
      rateAtLeast(
        `postgres consumer ≥ ${GOAL_TIMES_PGBOSS}x pg-boss's work()`,
        postgres!,
        pgboss!,
        GOAL_TIMES_PGBOSS,
      ),
    ],
    goals,
  );
}

/** sqs-consumer against our consumer over the sqs provider, both clients of one `serve --memory` child. */
async function sqsContest(goals: Goal[]): Promise<void> {
  const server = await startServer(serveCommand("--memory"));
  try {
    shareServers({ sqs: server.endpoint });
    const [theirs, ours] = await contest(
      `sqs: drain ${formatNumber(MESSAGES.sqs)} messages of one queue-runtime serve --memory (a child: CPU is the client's process's), sqs-consumer batchSize 10 against ours at concurrency ${SQS_CONCURRENCY}`,
      [{ key: "sqs-consumer" }, { key: "sqs-ours" }],
    );
    judged(
      [
        rateAtLeast("sqs: consumer's throughput ≥ sqs-consumer's", ours!, theirs!, 1),
        cpuAtMost("sqs: consumer's client CPU/msg ≤ sqs-consumer's", ours!, theirs!, 1),
      ],
      goals,
    );
  } finally {
    await stopServer(server);
  }
}

/** The Service Bus SDK's `subscribe()` against our consumer over the servicebus provider, both clients of one server child. */
async function serviceBusContest(goals: Goal[]): Promise<void> {
  const server = await startServiceBusServeChild(serviceBusServeCommand("--memory"));
  try {
    shareServers({
      servicebus: {
        connectionString: server.endpoint,
        administrationEndpoint: server.administrationEndpoint,
      },
    });
    const [theirs, ours] = await contest(
      `servicebus: drain ${formatNumber(MESSAGES.servicebus)} messages of one queue-runtime serve --servicebus --memory (a child), concurrency ${CONCURRENCY} both`,
      [{ key: "servicebus-sdk" }, { key: "servicebus-ours" }],
    );
    judged(
      [rateAtLeast("servicebus: consumer's throughput ≥ the SDK's subscribe()", ours!, theirs!, 1)],
      goals,
    );
  } finally {
    await stopServer(server);
  }
}

/**
 * `client.consume` against the hand loop it replaces on memory, sqlite and postgres, and against
 * sqs-consumer, the Service Bus SDK's `subscribe()`, BullMQ's `Worker` and pg-boss's `work()`:
 * each contest's contenders take turns over alternating rounds, each run in a fresh process
 * draining a queue filled beforehand (only the drain is timed), each one's best kept.
 */
export async function run(): Promise<void> {
  const started = performance.now();
  console.log(
    `\nconsumer: each contender drains a queue filled beforehand with a no-op handler; best of ${ROUNDS} ` +
      `alternating rounds, each run in a fresh process (${RUNS_PER_PROCESS} runs there, the first warming it up); ` +
      "CPU is the contender's process's (user + system), the least of its runs.",
  );
  const goals: Goal[] = [];
  await localContests(goals);
  await sqsContest(goals);
  await serviceBusContest(goals);
  console.log(`\n### Consumer goals (issue 27)\n`);
  for (const goal of goals) console.log(goalLine(goal));
  console.log(`\nconsumer: ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
