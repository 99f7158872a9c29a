import { bestOfRounds, type Measurement, measure, type Runs } from "../lib.js";
import { copiesFor, copiesHeld, copiesOf } from "./orders.js";
import type { TopicSide, TopicStore } from "./topic-side.js";

/** Rounds the publish and the send take turns over (the machine is shared: each one's best and median are compared). */
const ROUNDS = Number(process.env.TOPICS_BENCH_ROUNDS ?? 5);

/** One fan-out's figures on one store: every run of each contender, and the drain. */
export interface FanOutResult {
  readonly subscriptions: number;
  /** Publish and plain send, nothing drained meanwhile. */
  readonly publish: Runs;
  readonly send: Runs;
  /** Publish and plain send, consumers keeping up (only the publish's and the send's own time). */
  readonly keptPublish: Runs;
  readonly keptSend: Runs;
  /** Every copy of a publish of the store's messages received and completed, in batches of 10. */
  readonly drain: Measurement;
}

/** The publish's runs and the plain send's, taking turns. */
type PublishAndSend = [publish: Runs, send: Runs];

/** Receives and completes what a publish (or a send, `"plain"`) of order `index` left, every subscription at once, as their consumers would. */
async function takeCopies(side: TopicSide, subscriptions: number | "plain", index: number): Promise<void> {
  if (subscriptions === "plain") return side.take("plain", 1, 1);
  const takes: Promise<void>[] = [];
  for (let subscription = 0; subscription < subscriptions; subscription++) {
    const count = copiesFor(subscription, index);
    if (count > 0) takes.push(side.take(subscription, count, count));
  }
  await Promise.all(takes);
}

/**
 * A fresh topic of `subscriptions` on `store`, warmed up (a publish and a send received, so
 * links, statements and the JIT are ready), handed to `work` and closed after.
 */
async function onFreshTopic<T>(
  store: TopicStore,
  subscriptions: number,
  work: (side: TopicSide) => Promise<T>,
): Promise<T> {
  const side = await store.open(subscriptions);
  try {
    await side.publish(0);
    await side.send(0);
    await takeCopies(side, subscriptions, 0);
    await takeCopies(side, "plain", 0);
    return await work(side);
  } finally {
    await side.close();
  }
}

/** What a contender does with a side: publish or send order `index`, and where its copies land. */
interface Call {
  readonly name: string;
  readonly call: (side: TopicSide, index: number) => Promise<void>;
  readonly copiesIn: number | "plain";
}

function calls(store: TopicStore, subscriptions: number, keepingUp: string): [Call, Call] {
  return [
    {
      name: `${store.key}: publish to a topic of ${subscriptions}${keepingUp}`,
      call: (side, index) => side.publish(index),
      copiesIn: subscriptions,
    },
    {
      name: `${store.key}: plain send${keepingUp}`,
      call: (side, index) => side.send(index),
      copiesIn: "plain",
    },
  ];
}

/** One at a time, nothing drained meanwhile: each subscription's queue grows by its copies. */
async function publishAndSend(store: TopicStore, subscriptions: number): Promise<PublishAndSend> {
  const timed =
    ({ name, call }: Call) =>
    () =>
      onFreshTopic(store, subscriptions, (side) =>
        measure(name, store.messages, async () => {
          for (let index = 0; index < store.messages; index++) await call(side, index);
        }),
      );
  const [publish, send] = await bestOfRounds(ROUNDS, calls(store, subscriptions, "").map(timed));
  return [publish!, send!];
}

/**
 * The same with consumers keeping up: after each publish (or send) its copies are received and
 * completed, and only the publish's (or send's) own time is counted. The queues stay shallow, as
 * they are where consumers keep up.
 */
async function publishAndSendKeepingUp(store: TopicStore, subscriptions: number): Promise<PublishAndSend> {
  const timed =
    ({ name, call, copiesIn }: Call) =>
    () =>
      onFreshTopic(store, subscriptions, async (side): Promise<Measurement> => {
        let ms = 0;
        for (let index = 0; index < store.messages; index++) {
          const started = performance.now();
          await call(side, index);
          ms += performance.now() - started;
          await takeCopies(side, copiesIn, index);
        }
        return { name, items: store.messages, ms };
      });
  const [publish, send] = await bestOfRounds(
    ROUNDS,
    calls(store, subscriptions, ", consumers keeping up").map(timed),
  );
  return [publish!, send!];
}

/** Receives and completes every copy a publish of the store's messages made, subscription by subscription, in batches of 10. */
function drainCopies(store: TopicStore, subscriptions: number): Promise<Measurement> {
  return onFreshTopic(store, subscriptions, async (side) => {
    await side.publishAll(0, store.messages);
    return measure(
      `${store.key}: drain the copies of ${subscriptions} subscriptions (batches of 10)`,
      copiesOf(subscriptions, store.messages),
      async () => {
        for (let subscription = 0; subscription < subscriptions; subscription++)
          await side.take(subscription, copiesHeld(subscription, store.messages), 10);
      },
    );
  });
}

/** The contest on one store at one fan-out: publish against plain send in both states, then the drain. */
export async function contest(store: TopicStore, subscriptions: number): Promise<FanOutResult> {
  const [publish, send] = await publishAndSend(store, subscriptions);
  const [keptPublish, keptSend] = await publishAndSendKeepingUp(store, subscriptions);
  const drain = await drainCopies(store, subscriptions);
  return { subscriptions, publish, send, keptPublish, keptSend, drain };
}
