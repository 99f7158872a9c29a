import { type Contenders, isolated, type Measurement, serveContender } from "../lib.js";
import { RUNS_PER_PROCESS } from "./settings.js";

// Each contender imports only the client it runs.
const amqp = () => import("./amqp.js");
const jetstream = () => import("./jetstream.js");
const ours = () => import("./ours.js");

const contenders = {
  "rabbitmq-bare-batches": async () => (await amqp()).bareAmqp("batches"),
  "rabbitmq-bare-single": async () => (await amqp()).bareAmqp("single"),
  "rabbitmq-ours-batches": async () => (await ours()).ours("rabbitmq", "batches"),
  "rabbitmq-ours-single": async () => (await ours()).ours("rabbitmq", "single"),
  "nats-bare-batches": async () => (await jetstream()).bareJetStream("batches"),
  "nats-bare-single": async () => (await jetstream()).bareJetStream("single"),
  "nats-ours-batches": async () => (await ours()).ours("nats", "batches"),
  "nats-ours-single": async () => (await ours()).ours("nats", "single"),
} satisfies Contenders;

/** A contender of the brokers bench, by name. */
export type BrokerContender = keyof typeof contenders;

/** Runs `name` in a fresh process, {@link RUNS_PER_PROCESS} times there, and returns its best run. */
export function inProcess(name: BrokerContender): Promise<Measurement> {
  return isolated(import.meta.url, name, RUNS_PER_PROCESS);
}

// A no-op unless `isolated` started this very module.
await serveContender(import.meta.url, contenders);
