import { bestOfRounds, type Measurement, measure, type Runs } from "../lib.js";
import { copiesFor, copiesHeld, copiesOf } from "./orders.js";
import type { TopicSide, TopicStore } from "./topic-side.js";

/** Rounds the publish and the send take turns over (the machine is shared: the best of each is kept). */
const ROUNDS = Number(process.env.TOPICS_BENCH_ROUNDS ?? 5);

/** One fan-out's figures on one store. */
export interface FanOutResult {
  readonly subscriptions: number;
  /** Publish and plain send, nothing drained meanwhile. */
  readonly publish: Measurement;
  readonly send: Measurement;
  /** Publish and plain send, consumers keeping up (only the publish's and the send's own time). */
  readonly keptPublish: Measurement;
  readonly keptSend: Measurement;
  /** Every copy of a publish of the store's messages received and completed, in batches of 10. */
  readonly drain: Measurement;
  /** Every run of each contender, µs per message, one line each: how noisy the machine was. */
  readonly runs: readonly string[];
}

/** The publish's best run and the plain send's, and every run of both as {@link FanOutResult.runs} lines. */
interface PublishAndSend {
  readonly best: [publish: Measurement, send: Measurement];
  readonly runs: readonly string[];
}

/** A contender's runs as one line: its name and each run's µs per message, in the order they ran. */
const runsLine = ({ best, all }: Runs): string =>
  `${best.name}: ${all.map((run) => ((run.ms * 1000) / run.items).toFixed(0)).join(", ")} µs`;

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
  return {
    best: [
      { ...publish!.best, note: `${copiesOf(subscriptions, store.messages)} copies` },
      { ...send!.best, note: "floor: one plain send" },
    ],
    runs: [runsLine(publish!), runsLine(send!)],
  };
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
  return {
    best: [publish!.best, { ...send!.best, note: "floor: one plain send" }],
    runs: [runsLine(publish!), runsLine(send!)],
  };
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
  const idle = await publishAndSend(store, subscriptions);
  const kept = await publishAndSendKeepingUp(store, subscriptions);
  const drain = await drainCopies(store, subscriptions);
  const [publish, send] = idle.best;
  const [keptPublish, keptSend] = kept.best;
  return { subscriptions, publish, send, keptPublish, keptSend, drain, runs: [...idle.runs, ...kept.runs] };
}
