import { type QueueClient, QueueError } from "../../src/index.js";

/** Deletes every queue `client` lists (a dead-letter queue may go with the queue naming it), then closes it. */
export async function removeQueuesAndClose(client: QueueClient): Promise<void> {
  try {
    for (const queue of await client.admin.listQueues())
      await client.admin.deleteQueue(queue).catch((error: unknown) => {
        if (!QueueError.is(error, "QueueNotFound")) throw error;
      });
  } finally {
    await client.close();
  }
}
