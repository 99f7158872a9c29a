import { type Contenders, isolated, type Measurement, serveContender } from "../lib.js";
import type { ServiceBusEndpoint } from "./servicebus.js";
import { MESSAGES, RUNS_PER_PROCESS } from "./settings.js";

/** The variables that tell a contender's process where the shared servers listen. */
const SQS_ENDPOINT = "CONSUMER_BENCH_SQS_ENDPOINT";
const SERVICEBUS_ENDPOINT = "CONSUMER_BENCH_SERVICEBUS_ENDPOINT";

/** The value of the environment variable `name`, which the benchmark set before starting this process. */
function given(name: string): string {
  const value = process.env[name];
  if (value === undefined)
    throw new Error(`${name} is not set: run this contender through the consumer bench`);
  return value;
}

const sqsEndpoint = (): string => given(SQS_ENDPOINT);
const serviceBusEndpoint = (): ServiceBusEndpoint =>
  JSON.parse(given(SERVICEBUS_ENDPOINT)) as ServiceBusEndpoint;

// Each contender imports only what it runs: loading every anchor (bullmq, pg-boss, the SDKs) would slow every process.
const local = () => import("./local.js");
const sqs = () => import("./sqs.js");
const servicebus = () => import("./servicebus.js");

const contenders = {
  "memory-consumer": async () => (await local()).drainLocal("memory", "consumer"),
  "memory-floor": async () => (await local()).drainLocal("memory", "hand loop"),
  "sqlite-consumer": async () => (await local()).drainLocal("sqlite", "consumer"),
  "sqlite-floor": async () => (await local()).drainLocal("sqlite", "hand loop"),
  "postgres-consumer": async () => (await local()).drainLocal("postgres", "consumer"),
  "postgres-floor": async () => (await local()).drainLocal("postgres", "hand loop"),
  bullmq: async () => (await import("./bullmq.js")).bullmqWorker(MESSAGES.bullmq),
  pgboss: async () => (await import("./pgboss.js")).pgBossWork(MESSAGES.pgboss),
  "sqs-ours": async () => (await sqs()).oursOverSqs(sqsEndpoint(), MESSAGES.sqs),
  "sqs-consumer": async () => (await sqs()).sqsConsumer(sqsEndpoint(), MESSAGES.sqs),
  "servicebus-ours": async () =>
    (await servicebus()).oursOverServiceBus(serviceBusEndpoint(), MESSAGES.servicebus),
  "servicebus-sdk": async () =>
    (await servicebus()).serviceBusSubscribe(serviceBusEndpoint(), MESSAGES.servicebus),
} satisfies Contenders;

/** A contender of the consumer bench, by name. */
export type ConsumerContender = keyof typeof contenders;

/** Runs `name` in a fresh process, {@link RUNS_PER_PROCESS} times there, and returns its best run. */
export function inProcess(name: ConsumerContender, runs = RUNS_PER_PROCESS): Promise<Measurement> {
  return isolated(import.meta.url, name, runs);
}

/** Tells the contenders' processes, started from now on, where the shared servers listen. */
export function shareServers(servers: { sqs?: string; servicebus?: ServiceBusEndpoint }): void {
  if (servers.sqs !== undefined) {
    process.env[SQS_ENDPOINT] = servers.sqs;
    // The AWS SDK's notice that its 2027 versions will need Node 22, once in every contender's process, says nothing measured.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
  }
  if (servers.servicebus !== undefined) process.env[SERVICEBUS_ENDPOINT] = JSON.stringify(servers.servicebus);
}

// A no-op unless `isolated` started this very module.
await serveContender(import.meta.url, contenders);
