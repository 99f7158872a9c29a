import { QueueError } from "../../core/errors.js";
import type { SubscriptionRule } from "../../core/topics.js";
import { type CompiledFilter, compileFilter } from "../../rules/filters/index.js";
import type { QueueRecord } from "../../rules/queue-records.js";
import type { SubscriptionRecord, TopicRecord } from "../../rules/topic-records.js";
import { type PgQueryable, pgQuery } from "./pg-failures.js";

/** The columns of a topic row (node-postgres gives bigints as text). */
export interface TopicRow {
  id: number;
  name: string;
  default_ttl: string | null;
  max_message_bytes: number;
  created_at: string;
  revision: string;
  published: string;
}

/** The columns of a subscription row, with its topic's name. */
export interface SubscriptionRow {
  topic: string;
  name: string;
  rules: SubscriptionRule[];
  forward_to: string | null;
  created_at: string;
}

/** A topic record from its row. */
export function topicOfRow(row: TopicRow): TopicRecord {
  return {
    name: row.name,
    defaultTimeToLiveMs: row.default_ttl === null ? null : Number(row.default_ttl),
    maxMessageBytes: row.max_message_bytes,
    createdAt: Number(row.created_at),
    published: Number(row.published),
  };
}

/** A subscription record from its row. */
export function subscriptionOfRow(row: SubscriptionRow): SubscriptionRecord {
  return {
    topic: row.topic,
    name: row.name,
    rules: row.rules,
    forwardTo: row.forward_to,
    createdAt: Number(row.created_at),
  };
}

/** Where a subscription's copies go: its own queue, or the queue it forwards to (`undefined` when that is missing). */
export interface TopicTarget {
  readonly subscription: SubscriptionRecord;
  readonly filters: readonly CompiledFilter[];
  readonly queue: { readonly id: number; readonly record: QueueRecord } | undefined;
}

/** A topic with its subscriptions as read at one revision: what a publish plans its copies from. */
export interface TopicSnapshot {
  readonly id: number;
  /** The topic's revision when read; a publish made from another is refused by the statement. */
  readonly revision: string;
  readonly record: TopicRecord;
  readonly targets: readonly TopicTarget[];
}

/** A topic row with one of its subscriptions (nulls when it has none) and where its copies go. */
type SnapshotRow = TopicRow & {
  subscription: string | null;
  rules: SubscriptionRule[] | null;
  forward_to: string | null;
  subscribed_at: string | null;
  target_id: number | null;
  target: QueueRecord | null;
};

/** Reads a topic and its subscriptions in one statement (one snapshot); `undefined` when there is no such topic. */
export async function readTopicSnapshot(
  db: PgQueryable,
  schema: string,
  name: string,
): Promise<TopicSnapshot | undefined> {
  const s = schema;
  const found = await pgQuery<SnapshotRow>(
    db,
    `SELECT t.*, sub.name AS subscription, sub.rules, sub.forward_to, sub.created_at AS subscribed_at,
       CASE WHEN sub.forward_to IS NULL THEN q.id ELSE f.id END AS target_id,
       CASE WHEN sub.forward_to IS NULL THEN q.settings ELSE f.settings END AS target
     FROM ${s}.topics t LEFT JOIN ${s}.subscriptions sub ON sub.topic_id = t.id
       LEFT JOIN ${s}.queues q ON q.id = sub.queue_id
       LEFT JOIN ${s}.queues f ON f.name = sub.forward_to
     WHERE t.name = $1 ORDER BY sub.name`,
    [name],
    `reading topic ${name}`,
  );
  const first = found.rows[0];
  if (first === undefined) return undefined;
  const targets = found.rows.flatMap((row): TopicTarget[] => {
    if (row.subscription === null) return [];
    const subscription = subscriptionOfRow({
      topic: name,
      name: row.subscription,
      rules: row.rules ?? [],
      forward_to: row.forward_to,
      created_at: row.subscribed_at ?? "0",
    });
    return [
      {
        subscription,
        filters: subscription.rules.map((rule) => compileFilter(rule.filter)),
        queue:
          row.target_id === null || row.target === null
            ? undefined
            : { id: row.target_id, record: row.target },
      },
    ];
  });
  return { id: first.id, revision: first.revision, record: topicOfRow(first), targets };
}

/** A missing topic's error, naming it. */
export function topicNotFound(name: string): QueueError {
  return new QueueError("QueueNotFound", `topic ${name} does not exist`);
}
