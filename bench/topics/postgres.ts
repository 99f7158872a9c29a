import { createClient, type QueueClient } from "../../src/index.js";
import { freshSchema, POSTGRES_URL } from "../postgres-schema.js";
import { clientSide } from "./client-side.js";
import type { TopicSide, TopicStore } from "./topic-side.js";

/** A new schema of the benchmark database with the contest's topic, through our client; the schema is dropped on close. */
export async function openPostgresTopic(subscriptions: number): Promise<TopicSide> {
  const schema = await freshSchema("topics");
  const url = new URL(POSTGRES_URL);
  url.searchParams.set("schema", schema.name);
  let client: QueueClient;
  try {
    client = await createClient(url.toString());
  } catch (error) {
    await schema.drop();
    throw error;
  }
  return clientSide(client, subscriptions, () => schema.drop());
}

/** The contest on PostgreSQL. */
export const POSTGRES_TOPICS: TopicStore = {
  key: "postgres",
  name: "postgres (a new schema, our client)",
  messages: Number(process.env.TOPICS_BENCH_POSTGRES_MESSAGES ?? 200),
  open: openPostgresTopic,
};
