// The RabbitMQ the tests use, and a prefix per test file so parallel files and leftovers never meet.
import { randomBytes } from "node:crypto";
import amqp from "amqplib";
import { createClient } from "../../../src/index.js";
import "../../../src/providers/rabbitmq/index.js";

/** The broker every machine of this project runs (CI starts it when it is not answering). */
export const RABBITMQ_URL = process.env.RABBITMQ_URL ?? "amqp://guest:guest@127.0.0.1:5672/%2F";

/** A prefix no other test file or run uses. */
export function uniquePrefix(file: string): string {
  return `qrt-${file}-${randomBytes(4).toString("hex")}.`;
}

/** Deletes every queue of `prefix` and its catalog stream. */
export async function cleanPrefix(prefix: string, url = RABBITMQ_URL): Promise<void> {
  const client = await createClient({
    provider: { type: "rabbitmq", url, queuePrefix: prefix },
    createQueues: false,
  });
  try {
    for (const queue of await client.admin.listQueues())
      await client.admin.deleteQueue(queue).catch(() => undefined);
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
