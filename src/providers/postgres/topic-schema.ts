// Version 3: topics and their subscriptions. A subscription's messages are the queue row its path
// names, so everything a queue does works on it unchanged; these tables hold only what a topic
// adds. `revision` changes with every subscription or rule made or removed, and every publish
// checks it, so a process whose copy of the subscriptions is stale finds out in its publish.
// Written to run again harmlessly: a schema set back to an older version migrates once more.

/** The tables of topics and subscriptions. */
export const VERSION_3 = (s: string) => `
CREATE TABLE IF NOT EXISTS ${s}.topics (
  id serial PRIMARY KEY,
  name text NOT NULL UNIQUE,
  default_ttl bigint,
  max_message_bytes int NOT NULL,
  created_at bigint NOT NULL,
  revision bigint NOT NULL DEFAULT 0,
  published bigint NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS ${s}.subscriptions (
  topic_id int NOT NULL REFERENCES ${s}.topics (id) ON DELETE CASCADE,
  name text NOT NULL,
  queue_id int NOT NULL REFERENCES ${s}.queues (id),
  forward_to text,
  rules jsonb NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (topic_id, name)
);
CREATE INDEX IF NOT EXISTS subscriptions_queue ON ${s}.subscriptions (queue_id);
`;
