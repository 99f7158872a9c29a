import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { serve } from "../../src/cli/serve-command.js";
import { temporaryFile } from "../lib.js";
import { isFiltered, PLAIN_QUEUE, RULE_SQL, subscriptionName, TOPIC } from "./orders.js";
import { sdkSide } from "./sdk-side.js";
import type { TopicSide, TopicStore } from "./topic-side.js";

/**
 * The official emulator's Config.json for the contest: the plain queue, and the topic with its
 * `subscriptions`, the odd ones with one SQL rule (the even ones get Azure's `$Default`), every
 * entity on Azure's defaults.
 */
function emulatorConfig(subscriptions: number): string {
  const rules = [{ Name: "eu", Properties: { FilterType: "Sql", SqlFilter: { SqlExpression: RULE_SQL } } }];
  const topic = {
    Name: TOPIC,
    Properties: {},
    Subscriptions: Array.from({ length: subscriptions }, (_, index) => ({
      Name: subscriptionName(index),
      Properties: {},
      Rules: isFiltered(index) ? rules : [],
    })),
  };
  const namespace = {
    Name: "sbemulatorns",
    Queues: [{ Name: PLAIN_QUEUE, Properties: {} }],
    Topics: [topic],
  };
  return JSON.stringify({ UserConfig: { Namespaces: [namespace] } });
}

/**
 * `queue-runtime serve --servicebus --no-sqs --db <new file> --config <Config.json>`, started in
 * this process as a user runs it (SAS checked with the emulator's key), its entities made from the
 * Config.json as the server starts (the administration API's topics are not relied on); the
 * contest's client is the `@azure/service-bus` SDK.
 */
export async function openServiceBusTopic(subscriptions: number): Promise<TopicSide> {
  const { path, remove } = temporaryFile("topics.db");
  const config = join(dirname(path), "Config.json");
  writeFileSync(config, emulatorConfig(subscriptions));
  const args = [
    "--servicebus",
    "--no-sqs",
    "--db",
    path,
    "--config",
    config,
    "--amqp-port",
    "0",
    "--admin-port",
    "0",
  ];
  // The server's banner is not the benchmark's output.
  const handle = await serve(args, () => {}).catch((error: unknown) => {
    remove();
    throw error;
  });
  const endpoints = handle?.serviceBus;
  if (handle === undefined || endpoints === undefined) {
    await handle?.stop();
    remove();
    throw new Error("serve --servicebus started no Service Bus endpoint");
  }
  return sdkSide(endpoints.amqp.connectionString(), subscriptions, async () => {
    try {
      await handle.stop();
    } finally {
      remove();
    }
  });
}

/** The contest on `serve --servicebus --db` under the Azure SDK. */
export const SERVICEBUS_TOPICS: TopicStore = {
  key: "servicebus",
  name: "servicebus (serve --servicebus --db in this process, @azure/service-bus 7.9.5)",
  messages: Number(process.env.TOPICS_BENCH_SERVICEBUS_MESSAGES ?? 200),
  open: openServiceBusTopic,
};
