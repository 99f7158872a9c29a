import { type BrokerContender, inProcess } from "./brokers/contenders.js";
import { type Broker, oursUnavailable } from "./brokers/ours.js";
import { MESSAGES, ROUNDS, RUNS_PER_PROCESS, type Shape } from "./brokers/settings.js";
import { shapeName } from "./brokers/side.js";
import {
  cpuAtMost,
  cpuPerMessage,
  type Figures,
  figuresOf,
  type Goal,
  goalLine,
  rateAtLeast,
} from "./consumer/goals.js";
import { bestOfRounds, formatNumber, rate, report } from "./lib.js";

/** Issue 28: our CPU per message at most this many times the bare client's. */
const GOAL_CPU = 1.3;
/** Issue 28: our throughput at least this many times the bare client's. */
const GOAL_RATE = 0.8;

const BROKERS: Readonly<Record<Broker, string>> = {
  rabbitmq: "RabbitMQ 3.10, amqplib bare",
  nats: "NATS 2.9 JetStream, @nats-io/jetstream bare",
};
const SHAPES: readonly Shape[] = ["batches", "single"];

/** The contender running `who`'s client on `broker` in `shape`. */
const contender = (broker: Broker, who: "bare" | "ours", shape: Shape): BrokerContender =>
  `${broker}-${who}-${shape}` as const;

/** One shape's figures on a broker: the bare client's, and ours when our provider ran. */
interface Compared {
  readonly shape: Shape;
  readonly bare: Figures;
  readonly ours: Figures | undefined;
}

/**
 * Runs `keys` in fresh processes over {@link ROUNDS} alternating rounds, prints their best runs
 * (ratios to the first) and every run, and returns each one's figures.
 */
async function contest(title: string, keys: readonly BrokerContender[]): Promise<Figures[]> {
  const runs = await bestOfRounds(
    ROUNDS,
    keys.map((key) => () => inProcess(key)),
  );
  const bests = runs.map((one) => one.best);
  report(title, bests, bests[0]!.name);
  console.log("\nEach run, msg/s (CPU µs/msg):");
  keys.forEach((key, index) => {
    const each = runs[index]!.all.map(
      (run) => `${formatNumber(rate(run))} (${cpuPerMessage(run).toFixed(2)})`,
    );
    console.log(`- ${key}: ${each.join(", ")}`);
  });
  return runs.map(figuresOf);
}

/** Prints ours beside the bare client, shape by shape: best msg/s, least CPU µs/msg, and ours/bare of each. */
function printComparison(broker: Broker, compared: readonly Compared[]): void {
  console.log(`\n### ${broker}: ours / bare\n`);
  console.log(
    "| shape | bare msg/s | ours msg/s | ours/bare | bare CPU µs/msg | ours CPU µs/msg | ours/bare |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|");
  for (const { shape, bare, ours } of compared) {
    const cells =
      ours === undefined
        ? ["n/a", "-", bare.cpu.toFixed(2), "n/a", "-"]
        : [
            formatNumber(ours.rate),
            `${(ours.rate / bare.rate).toFixed(2)}x`,
            bare.cpu.toFixed(2),
            ours.cpu.toFixed(2),
            `${(ours.cpu / bare.cpu).toFixed(2)}x`,
          ];
    console.log(`| ${shapeName(shape)} | ${formatNumber(bare.rate)} | ${cells.join(" | ")} |`);
  }
}

/** Issue 28's two goals for one shape on one broker. */
function goalsOf(broker: Broker, { shape, bare, ours }: Compared & { ours: Figures }): Goal[] {
  const what = `${broker}, ${shapeName(shape)}`;
  return [
    cpuAtMost(`${what}: ours CPU/msg ≤ ${GOAL_CPU}x bare`, ours, bare, GOAL_CPU),
    rateAtLeast(`${what}: ours throughput ≥ ${GOAL_RATE}x bare`, ours, bare, GOAL_RATE),
  ];
}

/** Both shapes on `broker`, ours beside the bare client when our provider is there; its goals go to `goals`. */
async function brokerContests(broker: Broker, goals: Goal[]): Promise<void> {
  const unavailable = await oursUnavailable(broker);
  if (unavailable !== undefined)
    console.log(
      `\n${broker}: our provider is not available (${unavailable}); measuring the bare client only, no goals judged.`,
    );
  const compared: Compared[] = [];
  for (const shape of SHAPES) {
    const keys = [contender(broker, "bare", shape)];
    if (unavailable === undefined) keys.push(contender(broker, "ours", shape));
    const [bare, ours] = await contest(
      `${broker} (${BROKERS[broker]}): send + receive + settle ${formatNumber(MESSAGES[shape])} messages, ${shapeName(shape)}`,
      keys,
    );
    compared.push({ shape, bare: bare!, ours });
  }
  printComparison(broker, compared);
  const judged = compared.flatMap((one) =>
    one.ours === undefined ? [] : goalsOf(broker, { ...one, ours: one.ours }),
  );
  if (judged.length > 0) console.log("");
  for (const goal of judged) console.log(goalLine(goal));
  goals.push(...judged);
}

/** The brokers `args` name (`npm run bench -- brokers nats`), or every one when none is named. */
function chosenBrokers(args: readonly string[]): Broker[] {
  const all = Object.keys(BROKERS) as Broker[];
  const named = all.filter((broker) => args.includes(broker));
  return named.length > 0 ? named : all;
}

/**
 * Issue 28, item 5: our rabbitmq and nats providers beside each broker's own client used bare
 * (amqplib: quorum queue, confirms, manual acks; JetStream: work-queue stream, PubAcks, pull
 * consumer, explicit acks), sending, receiving and settling in batches of 10 from 4 loops and
 * one at a time; each contender in fresh processes over alternating rounds, each run on queues
 * or streams of its own, deleted afterwards.
 */
export async function run(args: readonly string[] = []): Promise<void> {
  const started = performance.now();
  console.log(
    `\nbrokers: best of ${ROUNDS} alternating rounds, each run in a fresh process (${RUNS_PER_PROCESS} runs there, ` +
      "the first warming it up); CPU is the contender's process's (user + system), the least of its runs; " +
      "the brokers run on this machine, their CPU is not counted.",
  );
  const goals: Goal[] = [];
  for (const broker of chosenBrokers(args)) await brokerContests(broker, goals);
  console.log("\n### Broker goals (issue 28)\n");
  if (goals.length === 0) console.log("- none judged: neither provider is available");
  for (const goal of goals) console.log(goalLine(goal));
  console.log(`\nbrokers: ${((performance.now() - started) / 1000).toFixed(0)} s`);
}
