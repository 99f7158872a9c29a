// The RabbitMQ the tests use, and a prefix per test file so parallel files and leftovers never meet.
import { randomBytes } from "node:crypto";
import amqp from "amqplib";
import { afterAll } from "vitest";
import { createClient } from "../../../src/index.js";
import "../../../src/providers/rabbitmq/index.js";

/** The broker every machine of this project runs (CI starts it when it is not answering). */
export const RABBITMQ_URL = process.env.RABBITMQ_URL ?? "amqp://guest:guest@127.0.0.1:5672/%2F";

/** A prefix no other test file or run uses. */
export function uniquePrefix(file: string): string {
  return `qrt-${file}-${randomBytes(4).toString("hex")}.`;
}

/** Deletes every topic (with its subscriptions) and queue of `prefix`, and its catalog stream. */
export async function cleanPrefix(prefix: string, url = RABBITMQ_URL): Promise<void> {
  const client = await createClient({
    provider: { type: "rabbitmq", url, queuePrefix: prefix },
    createQueues: false,
  });
  try {
    for (const topic of await client.admin.listTopics())
      await client.admin.deleteTopic(topic).catch(() => undefined);
    // A dead-letter queue goes once its sources are gone: passes until nothing is left or nothing moves.
    for (
      let left = await client.admin.listQueues(), before = Infinity;
      left.length > 0 && left.length < before;
    ) {
      for (const queue of left) await client.admin.deleteQueue(queue).catch(() => undefined);
      before = left.length;
      left = await client.admin.listQueues();
    }
  } finally {
    await client.close();
  }
  const connection = await amqp.connect(url);
  try {
    const channel = await connection.createChannel();
    await channel.deleteQueue(`${prefix}~catalog`);
  } finally {
    await connection.close();
  }
}

/**
 * A prefix per namespace (a contract test, a model run), the earlier ones deleted as soon as the
 * next begins (tests of a file run one after another) and the last after the file: quorum queues
 * hold file handles on the broker, and a file's leftovers must not pile up until its end.
 */
export function prefixPerNamespace(file: string): (namespace: string) => string {
  const base = uniquePrefix(file);
  let current: string | undefined;
  let cleaning: Promise<void> = Promise.resolve();
  afterAll(async () => {
    await cleaning;
    if (current !== undefined) await cleanPrefix(current);
  }, 60_000);
  return (namespace) => {
    const prefix = `${base}${namespace}.`;
    if (current !== undefined && current !== prefix) {
      const done = current;
      cleaning = cleaning.then(() => cleanPrefix(done)).catch(() => undefined);
    }
    current = prefix;
    return prefix;
  };
}
