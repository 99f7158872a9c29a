import type { BatchEntryResult, QueueError } from "../../core/errors.js";
import type { OutgoingMessage } from "../../core/provider.js";
import { subscriptionPath } from "../../core/topics.js";
import { filterableOf } from "../../rules/filters/index.js";
import { deliveryRefusal, oversizedForTopic } from "../../rules/topic-records.js";
import type { TopicSnapshot, TopicTarget } from "./topic-rows.js";

const READY = 0;
const DELAYED = 1;

/** One copy of a published message: into which queue, and when it is visible and ends. */
export interface Copy {
  readonly target: NonNullable<TopicTarget["queue"]>;
  /** The index of its message in {@link CopyPlan.messages}. */
  readonly message: number;
  readonly expiresAt: number | null;
  readonly state: number;
  readonly visibleAt: number;
}

/** What a publish stores, planned from one snapshot of the topic's subscriptions. */
export interface CopyPlan {
  /** The moment it was planned at, when its copies are enqueued. */
  readonly now: number;
  /** One result per message published, in order. */
  readonly results: BatchEntryResult[];
  /** How many were published (not refused). */
  readonly published: number;
  /** The published messages that have at least one copy. */
  readonly messages: OutgoingMessage[];
  /** Their copies, message by message. */
  readonly copies: Copy[];
  /** Whether a copy goes to a queue with deduplication: then copies go through the `send` function. */
  readonly deduplicated: boolean;
  /** Forwarding queues that do not exist (as the snapshot says) and that a copy needed. */
  readonly missingQueues: string[];
}

/**
 * Plans a publish as the engine does: each message (its id already given) is copied to every
 * subscription a rule of which matches it, with the topic's time to live where it has none; a
 * message a matching subscription cannot take (no session id for a session queue, a forwarding
 * queue that is missing) or larger than the topic takes is refused whole. With `createQueues`, a
 * missing forwarding queue is listed to be made instead.
 */
export function planCopies(
  snapshot: TopicSnapshot,
  messages: readonly OutgoingMessage[],
  now: number,
  createQueues: boolean,
): CopyPlan {
  const plan: CopyPlan = {
    now,
    results: [],
    published: 0,
    messages: [],
    copies: [],
    deduplicated: false,
    missingQueues: [],
  };
  let published = 0;
  let deduplicated = false;
  for (const message of messages) {
    const refused = oversizedForTopic(snapshot.record, message.body.byteLength);
    if (refused !== undefined) {
      plan.results.push({ ok: false, error: refused });
      continue;
    }
    const filterable = filterableOf(message);
    const targets = snapshot.targets.filter(({ filters }) =>
      filters.some((filter) => filter.matches(filterable)),
    );
    const refusal = targets
      .map((target) => refusalOf(target, message, createQueues, plan.missingQueues))
      .find((error) => error !== undefined);
    if (refusal !== undefined) {
      plan.results.push({ ok: false, error: refusal });
      continue;
    }
    published++;
    plan.results.push({ ok: true, messageId: message.messageId as string });
    const index = plan.messages.length;
    for (const { queue } of targets) {
      if (queue === undefined) continue;
      const { record } = queue;
      const delayMs = message.delayMs ?? record.defaultDelayMs;
      const timeToLiveMs =
        message.timeToLiveMs ?? snapshot.record.defaultTimeToLiveMs ?? record.defaultTimeToLiveMs;
      if (record.deduplicationWindowMs > 0 && message.deduplicationId !== undefined) deduplicated = true;
      plan.copies.push({
        target: queue,
        message: index,
        expiresAt: timeToLiveMs === null ? null : now + timeToLiveMs,
        state: delayMs > 0 ? DELAYED : READY,
        visibleAt: now + delayMs,
      });
    }
    if (plan.copies.length > 0 && plan.copies.at(-1)?.message === index) plan.messages.push(message);
  }
  return { ...plan, published, deduplicated };
}

/** Why `target` cannot take a copy of `message`, if it cannot; a queue to make is added to `missing`. */
function refusalOf(
  target: TopicTarget,
  message: OutgoingMessage,
  createQueues: boolean,
  missing: string[],
): QueueError | undefined {
  const { subscription, queue } = target;
  if (queue === undefined && createQueues) {
    const name = subscription.forwardTo ?? subscriptionPath(subscription.topic, subscription.name);
    if (!missing.includes(name)) missing.push(name);
  }
  return deliveryRefusal(subscription, queue?.record, message.sessionId, createQueues);
}
