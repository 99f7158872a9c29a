import type { QueueStats } from "../core/admin.js";
import { unlessNotFound } from "../core/errors.js";
import { parseSubscriptionPath } from "../core/topics.js";
import type { Labels, MetricFamily, Sample } from "./prometheus-text.js";

/** At most this many queues (the first by name) get series of their own: a scrape's work and size stay bounded. */
export const MAX_REPORTED_QUEUES = 1_000;

/** How many queues' counts are read at once; the event loop gets a turn between groups. */
const READ_GROUP = 32;

/** One queue's counts, by the name it is received from (a subscription's path for a subscription). */
export interface QueueCount {
  readonly queue: string;
  readonly stats: QueueStats;
}

/** The queues' counts of one scrape: how many queues there are, and the counts of those reported. */
export interface QueueCounts {
  readonly total: number;
  readonly counted: readonly QueueCount[];
}

/** The states a queue's messages are counted in, each with its `state` label value. */
const STATES: readonly (readonly [keyof QueueStats, string])[] = [
  ["active", "active"],
  ["inFlight", "in_flight"],
  ["delayed", "delayed"],
  ["deadLettered", "dead_lettered"],
];

/**
 * Reads the counts of the first {@link MAX_REPORTED_QUEUES} of `names` by name, a group at a
 * time; a queue deleted meanwhile is left out.
 */
export async function readQueueCounts(
  names: readonly string[],
  read: (queue: string) => QueueStats | Promise<QueueStats>,
): Promise<QueueCounts> {
  const reported = [...names].sort().slice(0, MAX_REPORTED_QUEUES);
  const counted: QueueCount[] = [];
  for (let start = 0; start < reported.length; start += READ_GROUP) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    const group = reported.slice(start, start + READ_GROUP);
    const found = await Promise.all(
      group.map((queue) => unlessNotFound(async () => ({ queue, stats: await read(queue) }))),
    );
    for (const count of found) if (count !== undefined) counted.push(count);
  }
  return { total: names.length, counted };
}

/** The queue gauges as exposition families: messages by queue and state, and how many queues exist. */
export function queueFamilies(counts: QueueCounts): MetricFamily[] {
  const samples: Sample[] = counts.counted.flatMap(({ queue, stats }) => {
    const labels = queueLabels(queue);
    return STATES.map(([field, state]) => ({ labels: { ...labels, state }, value: stats[field] }));
  });
  return [
    {
      type: "gauge",
      name: "queue_runtime_queue_messages",
      help: `Messages of a queue or a topic's subscription by state (active, in_flight, delayed, dead_lettered: those in its dead-letter queue); the first ${MAX_REPORTED_QUEUES} queues by name.`,
      samples,
    },
    {
      type: "gauge",
      name: "queue_runtime_queues",
      help: "Queues and topic subscriptions there are, reported or not.",
      samples: [{ labels: {}, value: counts.total }],
    },
  ];
}

/** `queue`, and for a subscription's path its `topic` and `subscription`. */
function queueLabels(queue: string): Labels {
  const subscription = parseSubscriptionPath(queue);
  return subscription === undefined
    ? { queue }
    : { queue, topic: subscription.topic, subscription: subscription.subscription };
}
