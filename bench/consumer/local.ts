import { createClient, type QueueClient } from "../../src/index.js";
import { type Measurement, temporaryFile } from "../lib.js";
import { freshSchema, POSTGRES_URL } from "../postgres-schema.js";
import { type Drainer, fill, timedDrain } from "./ours.js";
import { BODY, CONCURRENCY, MESSAGES, QUEUE } from "./settings.js";

/** The providers whose consumer is measured against its hand loop. */
export type LocalProvider = "memory" | "sqlite" | "postgres";

/** A client of a fresh, empty store of `provider`, and how to close it and remove the store. */
interface Opened {
  readonly client: QueueClient;
  readonly close: () => Promise<void>;
}

/** A new client on a store of its own: a memory client, a temporary SQLite file, or a fresh PostgreSQL schema. */
async function open(provider: LocalProvider): Promise<Opened> {
  if (provider === "memory") {
    const client = await createClient({ provider: { type: "memory" } });
    return { client, close: () => client.close() };
  }
  if (provider === "sqlite") {
    const file = temporaryFile("consumer.db");
    const client = await createClient({ provider: { type: "sqlite", path: file.path } });
    const close = async () => {
      await client.close();
      file.remove();
    };
    return { client, close };
  }
  const schema = await freshSchema("consumer");
  const client = await createClient({
    provider: { type: "postgres", connectionString: POSTGRES_URL, schema: schema.name },
  });
  const close = async () => {
    await client.close();
    await schema.drop();
  };
  return { client, close };
}

/** The contender's name in the tables. */
export function localName(provider: LocalProvider, drainer: Drainer): string {
  return drainer === "consumer"
    ? `queue-runtime ${provider}: client.consume, concurrency ${CONCURRENCY}`
    : `${provider} floor: hand loop of receiveMessages / handler / completeMessage, ${CONCURRENCY} at once`;
}

/**
 * Fills a fresh queue of `provider` with `count` messages (100 a send), collects the heap, and
 * times `drainer` draining it.
 */
export async function drainLocal(
  provider: LocalProvider,
  drainer: Drainer,
  count: number = MESSAGES[provider],
): Promise<Measurement> {
  const { client, close } = await open(provider);
  try {
    await client.admin.createQueue(QUEUE);
    await fill(client, QUEUE, count, BODY, 100);
    return await timedDrain(drainer, localName(provider, drainer), client, QUEUE, count, CONCURRENCY);
  } finally {
    await close();
  }
}
