import { createClient } from "../../src/index.js";
import { temporaryFile } from "../lib.js";
import { clientSide } from "./client-side.js";
import type { TopicSide, TopicStore } from "./topic-side.js";

/** A new SQLite file (the provider's defaults, `synchronous=NORMAL`) with the contest's topic, through our client. */
export async function openSqliteTopic(subscriptions: number): Promise<TopicSide> {
  const { path, remove } = temporaryFile("topics.db");
  const client = await createClient({ provider: { type: "sqlite", path } });
  return clientSide(client, subscriptions, remove);
}

/** The contest on SQLite. */
export const SQLITE_TOPICS: TopicStore = {
  key: "sqlite",
  name: "sqlite (a new SQLite file, our client)",
  messages: Number(process.env.TOPICS_BENCH_MESSAGES ?? 1_000),
  open: openSqliteTopic,
};
